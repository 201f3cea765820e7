// Starts Swagger UI on the apconform API's own OpenAPI document (served next to this page).
// Written for apconform; the files beside it are swagger-ui-dist, see VENDORED.md.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    defaultModelsExpandDepth: 0,
    docExpansion: "list",
    tryItOutEnabled: false,
  });
});
