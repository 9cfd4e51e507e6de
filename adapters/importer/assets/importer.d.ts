// Types of importer.js, tabnorm's host script: TabnormImporter.open and
// the messages the importer posts to the host page (docs/embed.md).

/** A job of a submitted import session. */
export interface TabnormJobSummary {
  id: string;
  status: string;
  rows_read: number;
  rows_valid: number;
  rows_rejected: number;
  superseded: boolean;
}

interface TabnormMessageBase {
  importSessionId: string;
}

/** The importer loaded and waits for the client secret (importer.js answers). */
export interface TabnormReady extends TabnormMessageBase { type: "tabnorm:ready" }
/** The importer's content is this tall, in CSS pixels; importer.js sizes the frame unless a height was given. */
export interface TabnormResize extends TabnormMessageBase { type: "tabnorm:resize"; height: number }
/** A file was uploaded, or fixes applied (rerunOf: the job they fixed). */
export interface TabnormJobCreated extends TabnormMessageBase { type: "tabnorm:job_created"; jobId: string; rerunOf?: string }
/** The end user confirmed the columns of a job. */
export interface TabnormReviewConfirmed extends TabnormMessageBase { type: "tabnorm:review_confirmed"; jobId: string }
/** The end user submitted: read the rows of jobIds, not of supersededJobIds. */
export interface TabnormComplete extends TabnormMessageBase {
  type: "tabnorm:complete";
  jobIds: string[];
  jobs: TabnormJobSummary[];
  supersededJobIds: string[];
  rowsValid: number;
  rowsRejected: number;
  metadata: Record<string, unknown>;
}
/** The end user closed the importer (its close button, or Escape in a modal). */
export interface TabnormClosed extends TabnormMessageBase { type: "tabnorm:closed" }

/** The codes of tabnorm:error. Others are the API's own codes (e.g. quota_exceeded). */
export type TabnormErrorCode = "frame_blocked" | "session_expired" | "session_revoked" | "network" | (string & {});

/** Something failed. frame_blocked comes from importer.js itself (no importSessionId). */
export interface TabnormError {
  type: "tabnorm:error";
  code: TabnormErrorCode;
  message: string;
  /** The API's code when code names it otherwise (import_session_expired, unauthenticated). */
  apiCode?: string;
  importSessionId?: string;
}

export type TabnormEvent =
  | TabnormReady
  | TabnormResize
  | TabnormJobCreated
  | TabnormReviewConfirmed
  | TabnormComplete
  | TabnormClosed
  | TabnormError;

export interface TabnormOpenOptions {
  /** The import session's url ({base}/embed/imp_…). */
  url: string;
  /** The import session's client_secret, handed to the importer by postMessage only. */
  clientSecret: string;
  /** "inline" (the default) in container, or "modal": a dialog over the page, Escape closes it, the focus returns to the opener. */
  mode?: "inline" | "modal";
  /** Where an inline importer goes; document.body by default. */
  container?: HTMLElement;
  /** A fixed frame height (e.g. "900px"); without it the frame follows tabnorm:resize. */
  height?: string;
  /** The frame's (and the dialog's) accessible name; "Import" by default. */
  title?: string;
  /** How long to wait for tabnorm:ready before tabnorm:error frame_blocked, in ms; 15000 by default. */
  readyTimeout?: number;
  onEvent?: (event: TabnormEvent) => void;
  onComplete?: (event: TabnormComplete) => void;
  onError?: (event: TabnormError) => void;
}

export interface TabnormImporterHandle {
  frame: HTMLIFrameElement;
  /** The modal's dialog, or null inline. */
  dialog: HTMLDialogElement | null;
  /** Removes the importer (and the dialog, returning the focus). */
  close(): void;
}

export interface TabnormImporterStatic {
  open(options: TabnormOpenOptions): TabnormImporterHandle;
}

declare global {
  interface Window {
    TabnormImporter: TabnormImporterStatic;
  }
  const TabnormImporter: TabnormImporterStatic;
}
