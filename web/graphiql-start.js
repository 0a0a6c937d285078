// Starts GraphiQL with the explorer plugin against this endpoint. A file rather than an
// inline script, since the page's Content-Security-Policy only runs scripts from this origin.
(function () {
  "use strict";

  // The endpoint is the page's own URL: the page is served by `GET /graphql` itself.
  var url = window.location.href.split(/[?#]/)[0];

  var EXAMPLE = [
    "# evidencegraph: entities, passages and the evidence behind them.",
    "# Set `Authorization: Bearer <token>` in the Headers tab below when the service",
    "# requires credentials. Run with Ctrl-Enter.",
    "query SearchWithEvidence($query: String! = \"Ada Lovelace\") {",
    "  searchEntities(query: $query, limit: 5) {",
    "    entity { id name labels }",
    "    status",
    "    score",
    "    evidence { text document { title } }",
    "  }",
    "}",
    "",
  ].join("\n");

  // GraphiQL's fetcher sends, with every operation, the headers the user sets in the
  // Headers editor; nothing is added here.
  var fetcher = GraphiQL.createFetcher({ url: url });
  var explorer = GraphiQLPluginExplorer.explorerPlugin();

  function App() {
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      plugins: [explorer],
      defaultQuery: EXAMPLE,
      defaultEditorToolsVisibility: true,
      isHeadersEditorEnabled: true,
      // Bearer tokens stay out of localStorage.
      shouldPersistHeaders: false,
      inputValueDeprecation: true,
    });
  }

  ReactDOM.createRoot(document.getElementById("graphiql")).render(
    React.createElement(App)
  );
})();
