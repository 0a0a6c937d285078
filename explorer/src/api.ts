// The one way the explorer talks to the service: urql over `POST /graphql` on this origin, every
// operation a named, typed document generated from schema.graphql (src/gql/). No cache: each
// user action sends exactly one request, and what is shown is what the service answered.
//
// The token, when authentication is on, is kept in memory and in this tab's session storage
// (it survives a reload, never the tab), and sent as `Authorization: Bearer`. Never in the URL.

import { Client, fetchExchange, type AnyVariables, type TypedDocumentNode } from "@urql/core";

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

const client = new Client({
  url: "/graphql",
  exchanges: [fetchExchange],
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
