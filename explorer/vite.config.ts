// The explorer's build: one page, its script and style sheet under /explore/assets/, which the
// service serves (api/explorer.py). No source maps and no inline code, so the page runs under a
// Content-Security-Policy of 'self' only. Same lock, same sources → the same files.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/explore/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: "es2022",
    chunkSizeWarningLimit: 1000,
  },
});
