// The second subgraph: `popularity` on evidencegraph's `Entity`, and references the gateway
// resolves through evidencegraph's `_entities`. Usage: PORT=… node popularity-subgraph.mjs
import { readFileSync } from "node:fs";
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { buildSubgraphSchema } from "@apollo/subgraph";
import { parse } from "graphql";

const typeDefs = parse(readFileSync(new URL("./popularity.graphql", import.meta.url), "utf8"));

// Deterministic, so the Python test can predict it: the sum of the id's character codes.
export function popularity(id) {
  return [...id].reduce((sum, ch) => sum + ch.charCodeAt(0), 0) % 1000;
}

const resolvers = {
  Query: {
    popularEntities: (_, { ids }) => ids.map((id) => ({ __typename: "Entity", id })),
    featuredPassages: (_, { ids }) => ids.map((id) => ({ __typename: "Passage", id })),
    featuredDocuments: (_, { ids }) => ids.map((id) => ({ __typename: "Document", id })),
  },
  Entity: {
    __resolveReference: (reference) => ({ id: reference.id }),
    popularity: (entity) => popularity(entity.id),
  },
};

const server = new ApolloServer({ schema: buildSubgraphSchema({ typeDefs, resolvers }) });
const { url } = await startStandaloneServer(server, {
  listen: { host: "127.0.0.1", port: Number(process.env.PORT) },
});
console.log(JSON.stringify({ listening: url }));
