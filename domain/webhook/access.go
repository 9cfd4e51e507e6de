package webhook

import (
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// CanManage allows organization admins on a cookie session and API keys
// (keys are organization-wide); members only read.
func CanManage(p identity.Principal) error {
	if p.Method == identity.ByAPIKey || p.Role == identity.Admin {
		return nil
	}
	return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only organization admins and API keys can change webhooks.")
}
