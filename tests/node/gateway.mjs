// A real Apollo federation gateway over evidencegraph and the popularity subgraph.
// Usage: PORT=… EVIDENCEGRAPH_URL=… POPULARITY_URL=… FETCH_LOG=file [GATEWAY_TOKEN=…] node gateway.mjs
// Every request the gateway sends to a subgraph is appended to FETCH_LOG as one JSON line
// (service, operation, number of representations), so a test can count `_entities` reads.
// With GATEWAY_TOKEN, every subgraph request carries it as `X-Gateway-Token`, as a gateway in
// front of an evidencegraph with FEDERATION_GATEWAY_TOKEN must (docs/security.md).
import { appendFileSync } from "node:fs";
import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from "@apollo/gateway";
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";

class LoggedDataSource extends RemoteGraphQLDataSource {
  constructor(name, url) {
    super({ url });
    this.name = name;
  }

  willSendRequest({ request, context }) {
    // contract §8: every operation needs the caller's credentials, so they travel with it.
    if (context?.authorization) {
      request.http.headers.set("authorization", context.authorization);
    }
    if (process.env.GATEWAY_TOKEN) {
      request.http.headers.set("x-gateway-token", process.env.GATEWAY_TOKEN);
    }
    const representations = request.variables?.representations;
    appendFileSync(
      process.env.FETCH_LOG,
      JSON.stringify({
        service: this.name,
        query: request.query,
        representations: representations ? representations.length : null,
        typenames: representations ? [...new Set(representations.map((r) => r.__typename))] : null,
      }) + "\n",
    );
  }
}

const subgraphs = [
  { name: "evidencegraph", url: process.env.EVIDENCEGRAPH_URL },
  { name: "popularity", url: process.env.POPULARITY_URL },
];
const gateway = new ApolloGateway({
  supergraphSdl: new IntrospectAndCompose({ subgraphs }),
  buildService: ({ name, url }) => new LoggedDataSource(name, url),
});
const server = new ApolloServer({ gateway });
const { url } = await startStandaloneServer(server, {
  listen: { host: "127.0.0.1", port: Number(process.env.PORT) },
  context: async ({ req }) => ({ authorization: req.headers.authorization }),
});
console.log(JSON.stringify({ listening: url }));
