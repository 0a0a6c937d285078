// The one way the explorer talks to the service: urql over `POST /graphql` on this origin, every
// operation a named, typed document generated from schema.graphql (src/gql/). No cache: each
// user action sends one operation, and what is shown is what the service answered.
//
// Operations go as persisted queries (Apollo's protocol): the SHA-256 of the document's text in
// `extensions.persistedQuery`, without the text. The hashes are the build's
// (scripts/persisted-manifest.mjs, src/gql/persisted.ts), the ids of the explorer's own
// persisted-query-manifest.json, so the page works when the service answers only trusted
// documents (GRAPHQL_TRUSTED_DOCUMENTS). Under automatic persisted queries a hash the service
// has not seen yet is PERSISTED_QUERY_NOT_FOUND, and the same operation is sent once more with
// its text: two requests, the first time a process meets that document.
//
// The token, when authentication is on, is kept in memory and in this tab's session storage
// (it survives a reload, never the tab), and sent as `Authorization: Bearer`. Never in the URL.

import {
  Client,
  fetchExchange,
  getOperationName,
  type AnyVariables,
  type TypedDocumentNode,
} from "@urql/core";
import { persistedExchange } from "@urql/exchange-persisted";
import { persistedHashes } from "./gql/persisted";

const TOKEN_KEY = "evidencegraph-explorer-token";
let token: string | null = sessionStorage.getItem(TOKEN_KEY);

export function currentToken(): string | null {
  return token;
}

export function setToken(value: string): void {
  token = value.trim() || null;
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** An answer's error as the contract codes it (`extensions.code`), with what it carries. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The build's hash of a document's text; none (the text is sent) for a document it did not see. */
async function persistedHash(_text: string, document: TypedDocumentNode): Promise<string | null> {
  return persistedHashes[getOperationName(document) ?? ""] ?? null;
}

const client = new Client({
  url: "/graphql",
  exchanges: [
    // POST, like every other request of the page: nothing it reads is kept by the browser.
    persistedExchange({ generateHash: persistedHash, preferGetForPersistedQueries: false }),
    fetchExchange,
  ],
  requestPolicy: "network-only",
  preferGetMethod: false,
  fetchOptions: () => ({
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  }),
});

export async function run<Data, Variables extends AnyVariables>(
  document: TypedDocumentNode<Data, Variables>,
  variables: Variables,
): Promise<Data> {
  const result = await client.query(document, variables).toPromise();
  const error = result.error;
  if (error) {
    const first = error.graphQLErrors[0];
    if (first) {
      const extensions = (first.extensions ?? {}) as Record<string, unknown>;
      const code = typeof extensions["code"] === "string" ? extensions["code"] : "ERROR";
      throw new ApiError(code, first.message, extensions);
    }
    const status = error.response instanceof Response ? error.response.status : 0;
    throw new ApiError(
      status === 401 ? "UNAUTHENTICATED" : "NETWORK",
      error.networkError?.message ?? error.message,
    );
  }
  if (result.data === undefined) throw new ApiError("NETWORK", "The service sent no data.");
  return result.data;
}
