/* eslint-disable */
// Written by scripts/persisted-manifest.mjs: each operation's SHA-256, the id of its text in
// ../../persisted-query-manifest.json.
export const persistedHashes: Readonly<Record<string, string>> = {
  ExplorerChoices: "ff0d55c316b1290383d05fcae4a43c8d828b7f39df99228290c510fd73e63bb9",
  ExplorerEntity: "5c3f91f1369d8072b43aa130803dde63506c3d775d4da0a76ba4dbc576cc1ca2",
  ExplorerEntityEvidence: "5f5002880d2a359ae287ccb97b3cc97512f54ef3addb663f45177095dcb46076",
  ExplorerPassage: "68733371129b50c8cc442e1c719697e93eb7958f07c86af329541c90a082fd75",
  ExplorerSearch: "f82f37b4d45d3d6fa809dcc83f58bf02bf186eaea8d5162f16127cc58373acac",
  ExplorerWalk: "d8c8d4e9801da6acb183b30bb663ef8dc5548c211e5244e22d0693a225f0433a",
};
