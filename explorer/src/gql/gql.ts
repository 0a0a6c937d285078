/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query ExplorerChoices {\n  entityLabels {\n    label\n    fulltextIndex\n    vectorIndex\n  }\n  grantedWorkspaces\n}": typeof types.ExplorerChoicesDocument,
    "query ExplorerEntity($id: ID!, $scope: ScopeInput, $first: Int!) {\n  entity(id: $id, scope: $scope) {\n    id\n    name\n    labels\n    description\n    evidencePage(first: $first) {\n      ...EvidencePage\n    }\n  }\n}\n\nquery ExplorerEntityEvidence($id: ID!, $scope: ScopeInput, $first: Int!, $after: String!) {\n  entity(id: $id, scope: $scope) {\n    id\n    evidencePage(first: $first, after: $after) {\n      ...EvidencePage\n    }\n  }\n}\n\nfragment EvidencePage on PassageConnection {\n  nodes {\n    ...PassageSummary\n  }\n  pageInfo {\n    endCursor\n    hasNextPage\n  }\n}": typeof types.ExplorerEntityDocument,
    "fragment PassageSummary on Passage {\n  id\n  text\n  position\n  document {\n    id\n    title\n    workspace\n  }\n}": typeof types.PassageSummaryFragmentDoc,
    "query ExplorerPassage($id: ID!, $scope: ScopeInput) {\n  passage(id: $id, scope: $scope) {\n    id\n    text\n    position\n    version\n    document {\n      id\n      title\n      workspace\n      uri\n    }\n    mentions(limit: 20) {\n      id\n      name\n      labels\n    }\n  }\n}": typeof types.ExplorerPassageDocument,
    "query ExplorerSearch($query: String!, $mode: SearchMode!, $labels: [String!], $scope: ScopeInput, $limit: Int!) {\n  searchEntities(\n    query: $query\n    mode: $mode\n    labels: $labels\n    scope: $scope\n    limit: $limit\n    supportLimit: 3\n  ) {\n    entity {\n      id\n      name\n      labels\n    }\n    status\n    score\n    lexicalRank\n    semanticRank\n    evidence {\n      ...PassageSummary\n    }\n  }\n  nameSuggestions(query: $query, scope: $scope, labels: $labels, limit: 3)\n}": typeof types.ExplorerSearchDocument,
    "query ExplorerWalk($entityId: ID!, $scope: ScopeInput, $depth: Int!, $relationTypes: [String!], $maxNodes: Int!, $maxEdges: Int!, $maxCandidates: Int!) {\n  walk(\n    entityId: $entityId\n    scope: $scope\n    depth: $depth\n    relationTypes: $relationTypes\n    maxNodes: $maxNodes\n    maxEdges: $maxEdges\n    maxCandidates: $maxCandidates\n  ) {\n    start {\n      id\n      name\n      labels\n    }\n    nodes {\n      id\n      name\n      labels\n      description\n      evidence(limit: 10) {\n        id\n      }\n    }\n    edges {\n      id\n      type\n      kind\n      depth\n      description\n      weight\n      source {\n        id\n      }\n      target {\n        id\n      }\n      evidence {\n        ...PassageSummary\n      }\n    }\n    truncatedBy\n  }\n}": typeof types.ExplorerWalkDocument,
};
const documents: Documents = {
    "query ExplorerChoices {\n  entityLabels {\n    label\n    fulltextIndex\n    vectorIndex\n  }\n  grantedWorkspaces\n}": types.ExplorerChoicesDocument,
    "query ExplorerEntity($id: ID!, $scope: ScopeInput, $first: Int!) {\n  entity(id: $id, scope: $scope) {\n    id\n    name\n    labels\n    description\n    evidencePage(first: $first) {\n      ...EvidencePage\n    }\n  }\n}\n\nquery ExplorerEntityEvidence($id: ID!, $scope: ScopeInput, $first: Int!, $after: String!) {\n  entity(id: $id, scope: $scope) {\n    id\n    evidencePage(first: $first, after: $after) {\n      ...EvidencePage\n    }\n  }\n}\n\nfragment EvidencePage on PassageConnection {\n  nodes {\n    ...PassageSummary\n  }\n  pageInfo {\n    endCursor\n    hasNextPage\n  }\n}": types.ExplorerEntityDocument,
    "fragment PassageSummary on Passage {\n  id\n  text\n  position\n  document {\n    id\n    title\n    workspace\n  }\n}": types.PassageSummaryFragmentDoc,
    "query ExplorerPassage($id: ID!, $scope: ScopeInput) {\n  passage(id: $id, scope: $scope) {\n    id\n    text\n    position\n    version\n    document {\n      id\n      title\n      workspace\n      uri\n    }\n    mentions(limit: 20) {\n      id\n      name\n      labels\n    }\n  }\n}": types.ExplorerPassageDocument,
    "query ExplorerSearch($query: String!, $mode: SearchMode!, $labels: [String!], $scope: ScopeInput, $limit: Int!) {\n  searchEntities(\n    query: $query\n    mode: $mode\n    labels: $labels\n    scope: $scope\n    limit: $limit\n    supportLimit: 3\n  ) {\n    entity {\n      id\n      name\n      labels\n    }\n    status\n    score\n    lexicalRank\n    semanticRank\n    evidence {\n      ...PassageSummary\n    }\n  }\n  nameSuggestions(query: $query, scope: $scope, labels: $labels, limit: 3)\n}": types.ExplorerSearchDocument,
    "query ExplorerWalk($entityId: ID!, $scope: ScopeInput, $depth: Int!, $relationTypes: [String!], $maxNodes: Int!, $maxEdges: Int!, $maxCandidates: Int!) {\n  walk(\n    entityId: $entityId\n    scope: $scope\n    depth: $depth\n    relationTypes: $relationTypes\n    maxNodes: $maxNodes\n    maxEdges: $maxEdges\n    maxCandidates: $maxCandidates\n  ) {\n    start {\n      id\n      name\n      labels\n    }\n    nodes {\n      id\n      name\n      labels\n      description\n      evidence(limit: 10) {\n        id\n      }\n    }\n    edges {\n      id\n      type\n      kind\n      depth\n      description\n      weight\n      source {\n        id\n      }\n      target {\n        id\n      }\n      evidence {\n        ...PassageSummary\n      }\n    }\n    truncatedBy\n  }\n}": types.ExplorerWalkDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ExplorerChoices {\n  entityLabels {\n    label\n    fulltextIndex\n    vectorIndex\n  }\n  grantedWorkspaces\n}"): (typeof documents)["query ExplorerChoices {\n  entityLabels {\n    label\n    fulltextIndex\n    vectorIndex\n  }\n  grantedWorkspaces\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ExplorerEntity($id: ID!, $scope: ScopeInput, $first: Int!) {\n  entity(id: $id, scope: $scope) {\n    id\n    name\n    labels\n    description\n    evidencePage(first: $first) {\n      ...EvidencePage\n    }\n  }\n}\n\nquery ExplorerEntityEvidence($id: ID!, $scope: ScopeInput, $first: Int!, $after: String!) {\n  entity(id: $id, scope: $scope) {\n    id\n    evidencePage(first: $first, after: $after) {\n      ...EvidencePage\n    }\n  }\n}\n\nfragment EvidencePage on PassageConnection {\n  nodes {\n    ...PassageSummary\n  }\n  pageInfo {\n    endCursor\n    hasNextPage\n  }\n}"): (typeof documents)["query ExplorerEntity($id: ID!, $scope: ScopeInput, $first: Int!) {\n  entity(id: $id, scope: $scope) {\n    id\n    name\n    labels\n    description\n    evidencePage(first: $first) {\n      ...EvidencePage\n    }\n  }\n}\n\nquery ExplorerEntityEvidence($id: ID!, $scope: ScopeInput, $first: Int!, $after: String!) {\n  entity(id: $id, scope: $scope) {\n    id\n    evidencePage(first: $first, after: $after) {\n      ...EvidencePage\n    }\n  }\n}\n\nfragment EvidencePage on PassageConnection {\n  nodes {\n    ...PassageSummary\n  }\n  pageInfo {\n    endCursor\n    hasNextPage\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment PassageSummary on Passage {\n  id\n  text\n  position\n  document {\n    id\n    title\n    workspace\n  }\n}"): (typeof documents)["fragment PassageSummary on Passage {\n  id\n  text\n  position\n  document {\n    id\n    title\n    workspace\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ExplorerPassage($id: ID!, $scope: ScopeInput) {\n  passage(id: $id, scope: $scope) {\n    id\n    text\n    position\n    version\n    document {\n      id\n      title\n      workspace\n      uri\n    }\n    mentions(limit: 20) {\n      id\n      name\n      labels\n    }\n  }\n}"): (typeof documents)["query ExplorerPassage($id: ID!, $scope: ScopeInput) {\n  passage(id: $id, scope: $scope) {\n    id\n    text\n    position\n    version\n    document {\n      id\n      title\n      workspace\n      uri\n    }\n    mentions(limit: 20) {\n      id\n      name\n      labels\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ExplorerSearch($query: String!, $mode: SearchMode!, $labels: [String!], $scope: ScopeInput, $limit: Int!) {\n  searchEntities(\n    query: $query\n    mode: $mode\n    labels: $labels\n    scope: $scope\n    limit: $limit\n    supportLimit: 3\n  ) {\n    entity {\n      id\n      name\n      labels\n    }\n    status\n    score\n    lexicalRank\n    semanticRank\n    evidence {\n      ...PassageSummary\n    }\n  }\n  nameSuggestions(query: $query, scope: $scope, labels: $labels, limit: 3)\n}"): (typeof documents)["query ExplorerSearch($query: String!, $mode: SearchMode!, $labels: [String!], $scope: ScopeInput, $limit: Int!) {\n  searchEntities(\n    query: $query\n    mode: $mode\n    labels: $labels\n    scope: $scope\n    limit: $limit\n    supportLimit: 3\n  ) {\n    entity {\n      id\n      name\n      labels\n    }\n    status\n    score\n    lexicalRank\n    semanticRank\n    evidence {\n      ...PassageSummary\n    }\n  }\n  nameSuggestions(query: $query, scope: $scope, labels: $labels, limit: 3)\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ExplorerWalk($entityId: ID!, $scope: ScopeInput, $depth: Int!, $relationTypes: [String!], $maxNodes: Int!, $maxEdges: Int!, $maxCandidates: Int!) {\n  walk(\n    entityId: $entityId\n    scope: $scope\n    depth: $depth\n    relationTypes: $relationTypes\n    maxNodes: $maxNodes\n    maxEdges: $maxEdges\n    maxCandidates: $maxCandidates\n  ) {\n    start {\n      id\n      name\n      labels\n    }\n    nodes {\n      id\n      name\n      labels\n      description\n      evidence(limit: 10) {\n        id\n      }\n    }\n    edges {\n      id\n      type\n      kind\n      depth\n      description\n      weight\n      source {\n        id\n      }\n      target {\n        id\n      }\n      evidence {\n        ...PassageSummary\n      }\n    }\n    truncatedBy\n  }\n}"): (typeof documents)["query ExplorerWalk($entityId: ID!, $scope: ScopeInput, $depth: Int!, $relationTypes: [String!], $maxNodes: Int!, $maxEdges: Int!, $maxCandidates: Int!) {\n  walk(\n    entityId: $entityId\n    scope: $scope\n    depth: $depth\n    relationTypes: $relationTypes\n    maxNodes: $maxNodes\n    maxEdges: $maxEdges\n    maxCandidates: $maxCandidates\n  ) {\n    start {\n      id\n      name\n      labels\n    }\n    nodes {\n      id\n      name\n      labels\n      description\n      evidence(limit: 10) {\n        id\n      }\n    }\n    edges {\n      id\n      type\n      kind\n      depth\n      description\n      weight\n      source {\n        id\n      }\n      target {\n        id\n      }\n      evidence {\n        ...PassageSummary\n      }\n    }\n    truncatedBy\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;