// Package domain holds the error kinds every layer speaks; its sub-packages
// hold the entities and rules of tabnorm (jobs, identity, schemas, the
// normalize engine). Nothing under domain does I/O or imports a framework.
package domain
