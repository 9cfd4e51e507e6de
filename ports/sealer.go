package ports

import "errors"

// Sealer encrypts the secrets an organization gives us to use on its
// behalf (a destination's credentials, a provider's client secret), so
// that a copy of the database alone does not reveal them. The associated
// data binds a sealed value to the record that holds it (its organization
// and id): a value copied into another record does not open.
type Sealer interface {
	Seal(plaintext, associated []byte) ([]byte, error)
	Open(sealed, associated []byte) ([]byte, error)
}

// ErrNoSecretKey is returned by a Sealer that has no key: the operator
// runs on a shared database without TABNORM_SECRET_KEY.
var ErrNoSecretKey = errors.New("no secret key: set TABNORM_SECRET_KEY to store secrets")

// ErrSealBroken is returned by Open when a sealed value does not open:
// it was changed, belongs to another record, or was sealed with a key the
// operator no longer lists.
var ErrSealBroken = errors.New("sealed value does not open with any configured key")
