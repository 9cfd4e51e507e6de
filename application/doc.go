// Package application holds the use cases of tabnorm, one sub-package per
// capability. Services are concrete structs that take a context and a
// principal, call the ports and apply the domain rules; they never see HTTP.
package application
