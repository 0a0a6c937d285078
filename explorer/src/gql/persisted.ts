/* eslint-disable */
// Written by scripts/persisted-manifest.mjs: each operation's SHA-256, the id of its text in
// ../../persisted-query-manifest.json.
export const persistedHashes: Readonly<Record<string, string>> = {
  ExplorerChoices: "ff0d55c316b1290383d05fcae4a43c8d828b7f39df99228290c510fd73e63bb9",
  ExplorerEntity: "5c3f91f1369d8072b43aa130803dde63506c3d775d4da0a76ba4dbc576cc1ca2",
  ExplorerEntityEvidence: "5f5002880d2a359ae287ccb97b3cc97512f54ef3addb663f45177095dcb46076",
  ExplorerPassage: "68733371129b50c8cc442e1c719697e93eb7958f07c86af329541c90a082fd75",
  ExplorerSearch: "ca650eccf98e8fe8e9826ef8af1f93924e6cbee098bbe3e35f132fd1c25242de",
  ExplorerWalk: "438c1c076e6089f03febb5aee57c28fb296fa16f99e6a33a06d684c606929e77",
};
