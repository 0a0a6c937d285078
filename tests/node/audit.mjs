// graphql-http's own server audit (GraphQL over HTTP), run against a served endpoint.
// Usage: node audit.mjs http://127.0.0.1:PORT/graphql   → prints every result as JSON
import { auditServer } from "graphql-http";

const results = await auditServer({ url: process.argv[2] });
console.log(
  JSON.stringify(
    results.map((result) => ({
      id: result.id,
      name: result.name,
      status: result.status,
      reason: result.status === "ok" ? null : result.reason,
    })),
  ),
);
