// An error as the user meets it: its code, what happened, and what to do, with a retry where
// trying again can help (the backend was away, the index was still being built).

import { ApiError } from "./api";
import { h } from "./dom";

function advice(error: ApiError): string {
  const ext = error.extensions;
  switch (error.code) {
    case "INDEX_NOT_READY":
      return (
        `Label ${String(ext["label"] ?? "?")} cannot be searched: its ${String(ext["index"] ?? "?")} ` +
        `index is ${String(ext["state"] ?? "not ONLINE")}. Run \`evidencegraph schema apply\`, ` +
        "wait until the index is ONLINE, then retry — or leave that label out of the filter."
      );
    case "FORBIDDEN": {
      const refused: unknown[] = Array.isArray(ext["workspaces"]) ? ext["workspaces"] : [];
      const named = refused.length
        ? `${refused.length === 1 ? "workspace" : "workspaces"} ${refused.map(String).join(", ")}`
        : "a workspace the scope names";
      return (
        `Your token is not granted ${named}. ` +
        `Remove ${refused.length > 1 ? "them" : "it"} from the scope, or use a token that grants ${refused.length > 1 ? "them" : "it"}.`
      );
    }
    case "UNAVAILABLE":
      return "Not found: it is missing, or outside your scope (the two look the same). Search for it instead.";
    case "BACKEND_UNAVAILABLE":
      return "Neo4j or the embedder cannot be reached right now. The service recovers on its own: retry in a moment.";
    case "UNAUTHENTICATED":
      return "This service needs a token: enter yours in the Token field above.";
    case "MALFORMED":
      return "The service refused an argument; change it and try again.";
    case "NETWORK":
      return "The service did not answer. Check that it is running, then retry.";
    default:
      return "Try again; if it persists, the service's log names the request.";
  }
}

const RETRYABLE = new Set(["BACKEND_UNAVAILABLE", "INDEX_NOT_READY", "NETWORK"]);

export function errorPanel(error: unknown, retry: () => void): HTMLElement {
  const apiError =
    error instanceof ApiError ? error : new ApiError("ERROR", String((error as Error)?.message ?? error));
  const button = RETRYABLE.has(apiError.code)
    ? h("button", { type: "button", class: "retry" }, "Retry")
    : null;
  button?.addEventListener("click", retry);
  return h(
    "section",
    { class: "error", role: "alert", "data-code": apiError.code },
    h("h2", {}, h("code", {}, apiError.code)),
    h("p", {}, advice(apiError)),
    h("p", { class: "message" }, apiError.message),
    button,
  );
}

/** The same words for a missing entity or passage as for one the token may not see. */
export function notFound(what: string): HTMLElement {
  return h(
    "section",
    { class: "error", role: "alert", "data-code": "NOT_FOUND" },
    h("h2", { tabindex: -1 }, `${what} not found`),
    h("p", {}, "It is missing, or outside your scope (the two look the same). Search for it instead."),
  );
}
