// Package ports declares the outbound interfaces the application needs:
// repositories, the transactor, blob storage, the queue, the event bus and
// the table readers. Adapters implement them; bootstrap binds them.
package ports
