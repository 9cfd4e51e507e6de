-- A job is superseded when a later job reruns it (source.rerun_of): every
-- read of a job looks for such a rerun, so rerun_of is indexed where set.
CREATE INDEX jobs_rerun_of_idx ON jobs (rerun_of) WHERE rerun_of <> '';
