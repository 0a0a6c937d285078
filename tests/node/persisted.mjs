// Apollo Client with its persisted-query link (automatic persisted queries) against evidencegraph.
// Usage: node persisted.mjs <graphql url> <operations.json>
// operations.json: [{"query": "...", "variables": {...}}, ...], sent in order by one client (its
// cache off, so every operation reaches the service). Prints one JSON line: for each HTTP request
// the link sent, whether it carried the document's text and the error codes it got back; and for
// each operation, its data or its error codes as the client saw them.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { ApolloClient, HttpLink, InMemoryCache, gql } from "@apollo/client/core/index.js";
import { createPersistedQueryLink } from "@apollo/client/link/persisted-queries/index.js";

const [url, operationsFile] = process.argv.slice(2);
const operations = JSON.parse(readFileSync(operationsFile, "utf8"));
const requests = [];

async function recordingFetch(input, init) {
  const body = JSON.parse(init.body);
  const response = await fetch(input, init);
  const answer = await response.clone().json();
  requests.push({
    sentText: typeof body.query === "string",
    sentHash: Boolean(body.extensions?.persistedQuery?.sha256Hash),
    status: response.status,
    codes: (answer.errors ?? []).map((error) => error.extensions?.code),
  });
  return response;
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const client = new ApolloClient({
  cache: new InMemoryCache({ addTypename: false }),
  link: createPersistedQueryLink({ sha256 }).concat(new HttpLink({ uri: url, fetch: recordingFetch })),
  defaultOptions: { query: { fetchPolicy: "no-cache", errorPolicy: "all" } },
});

const results = [];
for (const operation of operations) {
  try {
    const result = await client.query({ query: gql(operation.query), variables: operation.variables });
    results.push({
      data: result.data ?? null,
      codes: (result.errors ?? []).map((error) => error.extensions?.code),
    });
  } catch (error) {
    const graphQLErrors = error.graphQLErrors ?? [];
    const fromNetwork = error.networkError?.result?.errors ?? [];
    results.push({
      data: null,
      codes: [...graphQLErrors, ...fromNetwork].map((e) => e.extensions?.code),
    });
  }
}
console.log(JSON.stringify({ requests, results }));
