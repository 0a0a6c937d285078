// The peer of the load benchmark (bench/load.py): the Neo4j GraphQL Library under Apollo
// Server in production mode, over the benchmark's graph, on 127.0.0.1:$PORT. Two ways to ask:
//
//   personSearch  the naive peer: the library's own full-text query over the Person index,
//                 then each person's mentioned passages and their document. No visibility:
//                 superseded, unfinished and every workspace's passages count.
//   search        the fair peer: a @cypher field running the hand-written statement of
//                 bench/handwritten_search.py (all labels, both indexes, visibility, RRF,
//                 evidence), which bench/load.py writes to $PEER_CONFIG with its constants
//                 filled in. The client sends the query's words, the regexes of its words
//                 and of the names it equals, and its vector.
//
//   NEO4J_URI=bolt://127.0.0.1:7687 PORT=4000 PEER_CONFIG=peer.json node server.mjs
//   node server.mjs --print-schema    the generated SDL, to read
import { readFileSync } from "node:fs";
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { Neo4jGraphQL } from "@neo4j/graphql";
import { printSchema } from "graphql";
import neo4j from "neo4j-driver";

process.env.NODE_ENV = "production";

const config = JSON.parse(readFileSync(process.env.PEER_CONFIG, "utf8"));
const statement = config.statement.replaceAll('"""', '\\"""');

const typeDefs = `#graphql
type Person @node
  @fulltext(indexes: [{ indexName: "${config.personIndex}", queryName: "personSearch", fields: ["name"] }]) {
  id: ID!
  name: String!
  mentions: [Chunk!]! @relationship(type: "MENTIONED_IN", direction: OUT)
}

type Chunk @node {
  id: ID!
  text: String
  document: [Document!]! @relationship(type: "HAS_PART", direction: IN)
}

type Document @node {
  id: ID!
  title: String
}

type EvidenceDocument {
  title: String
}

type Evidence {
  id: ID!
  text: String
  document: EvidenceDocument
}

type SearchHit {
  id: ID!
  name: String
  labels: [String!]!
  score: Float!
  lexicalRank: Int
  semanticRank: Int
  supported: Boolean!
  evidence: [Evidence!]!
}

type Query {
  search(
    words: String!
    wordPatterns: [String!]!
    required: Int!
    queryWords: Int!
    exactPattern: String!
    vector: [Float!]!
    workspaces: [String!]
    documentIds: [String!]
  ): [SearchHit!]!
    @cypher(
      statement: """
${statement}
"""
      columnName: "hit"
    )
}
`;

const driver = neo4j.driver(process.env.NEO4J_URI ?? "bolt://127.0.0.1:7687", neo4j.auth.none(), {
  maxConnectionPoolSize: 50,
});
const schema = await new Neo4jGraphQL({ typeDefs, driver }).getSchema();

if (process.argv.includes("--print-schema")) {
  console.log(printSchema(schema));
  await driver.close();
  process.exit(0);
}

const server = new ApolloServer({ schema, introspection: false });
const { url } = await startStandaloneServer(server, {
  listen: { host: "127.0.0.1", port: Number(process.env.PORT ?? 4000) },
});
console.log(`peer ready at ${url}`);

const stop = async () => {
  await server.stop();
  await driver.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
