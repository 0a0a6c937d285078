/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** What the graph knows about an edge. */
export type EdgeKind =
  /** A visible passage states this relation; see `evidence`. */
  | 'ASSERTION'
  /** The relation has no supporting passage (co-occurrence or inference). */
  | 'PATH';

/** Whether a visible passage supports an entity. */
export type EntityStatus =
  /** At least one visible passage mentions the entity. */
  | 'SUPPORTED'
  /** Passages in scope mention the entity, but none of them is current (superseded or still being written); it comes back with no evidence. */
  | 'UNSUPPORTED';

/** The state of an index. */
export type IndexState =
  /** Failed to build; drop and re-create it. */
  | 'FAILED'
  /** Does not exist; run `evidencegraph schema apply`. */
  | 'MISSING'
  /** Ready to answer searches. */
  | 'ONLINE'
  /** Being built; not ready yet. */
  | 'POPULATING';

/** Narrows what a query may read. The effective scope is the workspaces you are granted, intersected with `workspaces` and with `documentIds` when they are given. Naming a workspace you are not granted is an error (FORBIDDEN). */
export type ScopeInput = {
  /** Only these documents (canonical lowercase UUIDs). Omit for every document. */
  documentIds?: Array<string> | null | undefined;
  /** Only documents of these workspaces. Omit for every workspace you are granted. */
  workspaces?: Array<string> | null | undefined;
};

/** How a search ranks its candidates. */
export type SearchMode =
  /** Lexical and semantic lists fused by reciprocal rank fusion (the default). */
  | 'HYBRID'
  /** Only the full-text search of the query's words, by its score. */
  | 'LEXICAL'
  /** Only the vector search of the embedded query, by cosine similarity. */
  | 'SEMANTIC';

/** A bound that cut a relationship walk short. */
export type WalkBound =
  /** A step read `maxCandidates` relationships and more remained. */
  | 'CANDIDATES'
  /** A node at the last depth has edges to entities not in the result. */
  | 'DEPTH'
  /** `maxEdges` was reached. */
  | 'EDGES'
  /** `maxNodes` was reached. */
  | 'NODES';

export type ExplorerEntityQueryVariables = Exact<{
  id: string;
  scope?: ScopeInput | null | undefined;
  evidenceLimit: number;
}>;


export type ExplorerEntityQuery = { entity: { id: string, name: string, labels: Array<string>, description: string | null, evidence: Array<{ id: string, text: string, position: number, document: { id: string, title: string | null, workspace: string } }> } | null };

export type ExplorerLabelsQueryVariables = Exact<{ [key: string]: never; }>;


export type ExplorerLabelsQuery = { entityLabels: Array<{ label: string, fulltextIndex: IndexState, vectorIndex: IndexState }> };

export type PassageSummaryFragment = { id: string, text: string, position: number, document: { id: string, title: string | null, workspace: string } };

export type ExplorerPassageQueryVariables = Exact<{
  id: string;
  scope?: ScopeInput | null | undefined;
}>;


export type ExplorerPassageQuery = { passage: { id: string, text: string, position: number, version: number, document: { id: string, title: string | null, workspace: string, uri: string | null } } | null };

export type ExplorerSearchQueryVariables = Exact<{
  query: string;
  mode: SearchMode;
  labels?: Array<string> | string | null | undefined;
  scope?: ScopeInput | null | undefined;
  limit: number;
}>;


export type ExplorerSearchQuery = { searchEntities: Array<{ status: EntityStatus, score: number, lexicalRank: number | null, semanticRank: number | null, entity: { id: string, name: string, labels: Array<string> }, evidence: Array<{ id: string, text: string, position: number, document: { id: string, title: string | null, workspace: string } }> }> };

export type ExplorerWalkQueryVariables = Exact<{
  entityId: string;
  scope?: ScopeInput | null | undefined;
  depth: number;
  relationTypes?: Array<string> | string | null | undefined;
  maxNodes: number;
  maxEdges: number;
  maxCandidates: number;
}>;


export type ExplorerWalkQuery = { walk: { truncatedBy: Array<WalkBound>, start: { id: string, name: string, labels: Array<string> }, nodes: Array<{ id: string, name: string, labels: Array<string> }>, edges: Array<{ id: string, type: string, kind: EdgeKind, depth: number, source: { id: string }, target: { id: string }, evidence: Array<{ id: string, text: string, position: number, document: { id: string, title: string | null, workspace: string } }> }> } };

export const PassageSummaryFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassageSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Passage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"document"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}}]}}]}}]} as unknown as DocumentNode<PassageSummaryFragment, unknown>;
export const ExplorerEntityDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ExplorerEntity"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ScopeInput"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"evidenceLimit"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"entity"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"evidence"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"evidenceLimit"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PassageSummary"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassageSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Passage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"document"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}}]}}]}}]} as unknown as DocumentNode<ExplorerEntityQuery, ExplorerEntityQueryVariables>;
export const ExplorerLabelsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ExplorerLabels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"entityLabels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"fulltextIndex"}},{"kind":"Field","name":{"kind":"Name","value":"vectorIndex"}}]}}]}}]} as unknown as DocumentNode<ExplorerLabelsQuery, ExplorerLabelsQueryVariables>;
export const ExplorerPassageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ExplorerPassage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ScopeInput"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"passage"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"document"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}},{"kind":"Field","name":{"kind":"Name","value":"uri"}}]}}]}}]}}]} as unknown as DocumentNode<ExplorerPassageQuery, ExplorerPassageQueryVariables>;
export const ExplorerSearchDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ExplorerSearch"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"query"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"mode"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"SearchMode"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"labels"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ScopeInput"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"limit"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"searchEntities"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"query"},"value":{"kind":"Variable","name":{"kind":"Name","value":"query"}}},{"kind":"Argument","name":{"kind":"Name","value":"mode"},"value":{"kind":"Variable","name":{"kind":"Name","value":"mode"}}},{"kind":"Argument","name":{"kind":"Name","value":"labels"},"value":{"kind":"Variable","name":{"kind":"Name","value":"labels"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"limit"},"value":{"kind":"Variable","name":{"kind":"Name","value":"limit"}}},{"kind":"Argument","name":{"kind":"Name","value":"supportLimit"},"value":{"kind":"IntValue","value":"3"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"entity"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"}}]}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"lexicalRank"}},{"kind":"Field","name":{"kind":"Name","value":"semanticRank"}},{"kind":"Field","name":{"kind":"Name","value":"evidence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PassageSummary"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassageSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Passage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"document"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}}]}}]}}]} as unknown as DocumentNode<ExplorerSearchQuery, ExplorerSearchQueryVariables>;
export const ExplorerWalkDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ExplorerWalk"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"entityId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"scope"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"ScopeInput"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"depth"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"relationTypes"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"maxNodes"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"maxEdges"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"maxCandidates"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"walk"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"entityId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"entityId"}}},{"kind":"Argument","name":{"kind":"Name","value":"scope"},"value":{"kind":"Variable","name":{"kind":"Name","value":"scope"}}},{"kind":"Argument","name":{"kind":"Name","value":"depth"},"value":{"kind":"Variable","name":{"kind":"Name","value":"depth"}}},{"kind":"Argument","name":{"kind":"Name","value":"relationTypes"},"value":{"kind":"Variable","name":{"kind":"Name","value":"relationTypes"}}},{"kind":"Argument","name":{"kind":"Name","value":"maxNodes"},"value":{"kind":"Variable","name":{"kind":"Name","value":"maxNodes"}}},{"kind":"Argument","name":{"kind":"Name","value":"maxEdges"},"value":{"kind":"Variable","name":{"kind":"Name","value":"maxEdges"}}},{"kind":"Argument","name":{"kind":"Name","value":"maxCandidates"},"value":{"kind":"Variable","name":{"kind":"Name","value":"maxCandidates"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"start"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"labels"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"source"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}}]}},{"kind":"Field","name":{"kind":"Name","value":"target"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}}]}},{"kind":"Field","name":{"kind":"Name","value":"evidence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PassageSummary"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"truncatedBy"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassageSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Passage"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"document"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}}]}}]}}]} as unknown as DocumentNode<ExplorerWalkQuery, ExplorerWalkQueryVariables>;