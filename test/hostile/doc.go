// Package hostile holds attack-shaped tests: each boots the whole service
// (test/apptest, a real server on loopback and a real database) or its
// binary, and does what an attacker tried — bombs, floods, slow clients,
// forged cursors, hostile bytes, redirects, races — then checks that the
// service held: bounded memory and time, the right problem+json, no 500.
package hostile
