import { defineConfig } from "vite";

// `mmkg serve --ui DIR` serves the build at /; `npm run dev` proxies the API to a running
// server (MMKG_URL, default http://127.0.0.1:8080).
export default defineConfig({
  base: "/",
  build: {
    target: "es2022",
    chunkSizeWarningLimit: 1024,
    sourcemap: false,
  },
  server: {
    proxy: {
      "/api": process.env.MMKG_URL ?? "http://127.0.0.1:8080",
      "/health": process.env.MMKG_URL ?? "http://127.0.0.1:8080",
      "/w/": process.env.MMKG_URL ?? "http://127.0.0.1:8080", // a workspace's routes: /w/NAME/api/...
    },
  },
});
