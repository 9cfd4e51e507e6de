package domain

// Code is a stable machine-readable error code of the contract: the
// `code` of an error response (API.md §2) or of a failed job's `error`
// (API.md §5.2). Each code is declared once, here; adapters/httpapi keys
// its status table by the problem codes, and tests hold this file, that
// table, docs/API.md and the OpenAPI document to the same lists.
type Code string

// Problem codes: the code of an error response (API.md §2).
const (
	CodeInvalidRequest              Code = "invalid_request"
	CodeInvalidCursor               Code = "invalid_cursor"
	CodeFileRequired                Code = "file_required"
	CodeInvalidMode                 Code = "invalid_mode"
	CodeMixedAuthentication         Code = "mixed_authentication"
	CodeUnauthenticated             Code = "unauthenticated"
	CodeInvalidAPIKey               Code = "invalid_api_key"
	CodeAPIKeyExpired               Code = "api_key_expired"
	CodeInvalidCredentials          Code = "invalid_credentials"
	CodeCSRFTokenInvalid            Code = "csrf_token_invalid"
	CodeForbiddenEntitlementMissing Code = "forbidden_entitlement_missing"
	CodeInsufficientPermissions     Code = "insufficient_permissions"
	CodeInsufficientScope           Code = "insufficient_scope"
	CodeForbiddenImportSession      Code = "forbidden_import_session"
	CodeImportSessionExpired        Code = "import_session_expired"
	CodeLicenseInvalid              Code = "license_invalid"
	CodeLicenseExpired              Code = "license_expired"
	CodeQuotaExceeded               Code = "quota_exceeded"
	CodeNotFound                    Code = "not_found"
	CodeMethodNotAllowed            Code = "method_not_allowed"
	CodeJobNotCancelable            Code = "job_not_cancelable"
	CodeJobNotFinished              Code = "job_not_finished"
	CodeJobNotAwaitingReview        Code = "job_not_awaiting_review"
	CodeSourceDeleted               Code = "source_deleted"
	CodeIdempotencyKeyReused        Code = "idempotency_key_reused"
	CodeConflict                    Code = "conflict"
	CodeWebhookDisabled             Code = "webhook_disabled"
	CodeDeliveryPending             Code = "delivery_pending"
	CodeWebhookLimitReached         Code = "webhook_limit_reached"
	CodeEditLimitReached            Code = "edit_limit_reached"
	CodeNothingToUndo               Code = "nothing_to_undo"
	CodeNothingToRedo               Code = "nothing_to_redo"
	CodeRowsStillInvalid            Code = "rows_still_invalid"
	CodeTooFewValidRows             Code = "too_few_valid_rows"
	CodeSecretKeyRequired           Code = "secret_key_required"
	CodeSSORequired                 Code = "sso_required"
	CodeSSONotConfigured            Code = "sso_not_configured"
	CodeSSODomainNotAllowed         Code = "sso_domain_not_allowed"
	CodeSSOFailed                   Code = "sso_failed"
	CodeFileTooLarge                Code = "file_too_large"
	CodeUnsupportedFileFormat       Code = "unsupported_file_format"
	CodeEncryptedFile               Code = "encrypted_file"
	CodeUnsupportedMediaType        Code = "unsupported_media_type"
	CodeInvalidSchema               Code = "invalid_schema"
	CodeFileNotFound                Code = "file_not_found"
	CodeInvalidMapping              Code = "invalid_mapping"
	CodeRequiredFieldUnmapped       Code = "required_field_unmapped"
	CodeNoColumnsMapped             Code = "no_columns_mapped"
	CodeCellTooLong                 Code = "cell_too_long"
	CodeRateLimited                 Code = "rate_limited"
	CodeTooManyStreams              Code = "too_many_streams"
	CodeInternalError               Code = "internal_error"
	CodeUnavailable                 Code = "unavailable"
)

// Job failure codes: a failed job's error.code (API.md §5.2), and
// review_expired, a canceled job's. A job also fails with some of the
// problem codes above (invalid_request, invalid_schema, encrypted_file,
// unsupported_file_format, required_field_unmapped, no_columns_mapped,
// internal_error) when the same fault is found while it runs rather than
// at a request.
const (
	CodeUnreadableFile   Code = "unreadable_file"
	CodeNoColumns        Code = "no_columns"
	CodeTooManyColumns   Code = "too_many_columns"
	CodeRowLimitExceeded Code = "row_limit_exceeded"
	CodeInvalidRow       Code = "invalid_row"
	CodeTooManyErrors    Code = "too_many_errors"
	CodeJobTimeout       Code = "job_timeout"
	CodeWorkerLost       Code = "worker_lost"
	CodeReviewExpired    Code = "review_expired"
	// CodeHookFailed: a validation hook gave no usable answer and its
	// on_error is fail_job.
	CodeHookFailed Code = "hook_failed"
)
