// Composes evidencegraph's exported SDL with the popularity subgraph's, offline.
// Usage: node compose.mjs path/to/schema.graphql   → prints {errors, hints, supergraphSdl}
import { readFileSync } from "node:fs";
import { composeServices } from "@apollo/composition";
import { parse } from "graphql";

const read = (path) => parse(readFileSync(path, "utf8"));
const result = composeServices([
  { name: "evidencegraph", url: "http://127.0.0.1/graphql", typeDefs: read(process.argv[2]) },
  {
    name: "popularity",
    url: "http://127.0.0.1/popularity",
    typeDefs: read(new URL("./popularity.graphql", import.meta.url)),
  },
]);
console.log(
  JSON.stringify({
    errors: (result.errors ?? []).map((error) => error.message),
    hints: (result.hints ?? []).map((hint) => hint.toString()),
    supergraphSdl: result.supergraphSdl ?? null,
  }),
);
process.exitCode = result.errors ? 1 : 0;
