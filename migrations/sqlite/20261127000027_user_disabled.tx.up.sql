-- An operator may disable a user (tabnorm admin disable-user): the user can no
-- longer sign in, and their sessions are deleted.
ALTER TABLE users ADD COLUMN disabled_at TIMESTAMP;
