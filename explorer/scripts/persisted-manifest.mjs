// The explorer's trusted documents (docs/explorer.md "Trusted documents"): every operation the
// page can send, as Apollo's persisted query manifest, with `id` the SHA-256 of `body`.
//
// `body` is exactly the text urql sends: urql's own `stringifyDocument` applied to the documents
// GraphQL Code Generator wrote (src/gql/graphql.ts), so the hash the page sends names that text
// in both of the service's modes (a hash of trusted documents, or automatic persisted queries,
// where a miss sends this text with its hash and the service checks one against the other).
// The code generator's own `persistedDocuments` hashes a normalised print instead (fields
// sorted, one line, `sha256:`-prefixed ids), which is not the text urql sends.
//
// Writes persisted-query-manifest.json (what an operator names in GRAPHQL_TRUSTED_DOCUMENTS)
// and src/gql/persisted.ts (operation name → hash, bundled). `npm run build` runs it after the
// code generator; the same sources give the same bytes.
//
// Usage (from explorer/): node scripts/persisted-manifest.mjs
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { getOperationName, stringifyDocument } from "@urql/core";
import ts from "typescript";

const GENERATED = "src/gql/graphql.ts";
const MANIFEST = "persisted-query-manifest.json";
const HASHES = "src/gql/persisted.ts";

// graphql.ts holds types and JSON documents, and imports only types: transpiled, it has no
// import left, so it loads from a data: URL.
const { outputText } = ts.transpileModule(readFileSync(GENERATED, "utf8"), {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
});
const generated = await import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}`);

const operations = [];
for (const document of Object.values(generated)) {
  const definitions = document?.kind === "Document" ? document.definitions : [];
  const operation = definitions.find((definition) => definition.kind === "OperationDefinition");
  if (!operation) continue; // a fragment's document: sent only inside an operation's
  const name = getOperationName(document);
  if (!name) throw new Error(`${GENERATED}: every operation needs a name`);
  // stringifyDocument notes the text on the document it prints (`loc`): print a copy.
  const body = stringifyDocument(structuredClone(document));
  const id = createHash("sha256").update(body, "utf8").digest("hex");
  operations.push({ id, name, type: operation.operation, body });
}
operations.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const names = operations.map((operation) => operation.name);
if (new Set(names).size !== names.length) throw new Error(`operation names repeat: ${names}`);

const manifest = { format: "apollo-persisted-query-manifest", version: 1, operations };
writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
const entries = operations.map(({ name, id }) => `  ${name}: "${id}",`).join("\n");
writeFileSync(
  HASHES,
  `/* eslint-disable */\n// Written by scripts/persisted-manifest.mjs: each operation's SHA-256, the id of its text in\n// ../../${MANIFEST}.\nexport const persistedHashes: Readonly<Record<string, string>> = {\n${entries}\n};\n`,
);
console.log(`${MANIFEST}: ${operations.length} operations`);
