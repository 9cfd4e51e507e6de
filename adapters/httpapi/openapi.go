package httpapi

import (
	_ "embed"

	"github.com/gin-gonic/gin"
)

// OpenAPI is the OpenAPI 3.1 description of every route. It is kept in the
// repository next to the handlers and checked by tests: it must validate,
// list exactly the routes the router serves, and describe their responses.
//
//go:embed openapi.json
var OpenAPI []byte

func serveOpenAPI(c *gin.Context) {
	c.Data(200, "application/json; charset=utf-8", OpenAPI)
}
