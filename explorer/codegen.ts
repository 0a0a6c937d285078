// Typed documents from the committed schema (../schema.graphql) and this UI's named operations
// (src/operations/*.graphql): `npm run codegen` writes src/gql/, which `npm run build` runs first.
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "../schema.graphql",
  documents: ["src/operations/*.graphql"],
  ignoreNoDocuments: false,
  generates: {
    "src/gql/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: {
        enumsAsTypes: true,
        useTypeImports: true,
        skipTypename: true,
        scalars: { ID: "string", _Any: "unknown" },
      },
    },
  },
};

export default config;
