// A TCP forwarder in front of a server, switchable between passing traffic,
// refusing connections and swallowing them (a network that drops packets),
// and able to hold every chunk the client sends for a while (a slow link).
// Stands for a Git host or an API server endpoint that goes away and comes
// back on the same address. TLS passes through untouched, so the client still
// checks the server's own certificate.
import net from "node:net";

export type ProxyMode = "up" | "refuse" | "hang";

export interface SwitchableProxy {
  url: string;
  port: number;
  mode: ProxyMode;
  /** Milliseconds each chunk from the client waits before it is forwarded; 0 = none. */
  latencyMs: number;
  /** Ends every connection through the proxy now, cleanly (`end`) or with a reset; new ones still pass. */
  dropConnections(how: "end" | "reset"): void;
  close(): Promise<void>;
}

export async function startSwitchableProxy(target: { host: string; port: number }): Promise<SwitchableProxy> {
  const sockets = new Set<net.Socket>();
  const clients = new Set<net.Socket>();
  const state = { mode: "up" as ProxyMode, latencyMs: 0 };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    if (state.mode === "refuse") {
      client.resetAndDestroy();
      return;
    }
    if (state.mode === "hang") return;
    clients.add(client);
    const upstream = net.connect(target.port, target.host);
    client.on("close", () => {
      clients.delete(client);
      upstream.destroy();
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    // Timers of equal delay fire in the order they were set, so a delayed stream keeps its order.
    client.on("data", (chunk: Buffer) => {
      if (state.latencyMs > 0) setTimeout(() => upstream.writable && upstream.write(chunk), state.latencyMs);
      else upstream.write(chunk);
    });
    client.on("end", () => setTimeout(() => upstream.end(), state.latencyMs));
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
      if (m !== "up") for (const s of sockets) s.destroy();
    },
    get latencyMs() {
      return state.latencyMs;
    },
    set latencyMs(ms) {
      state.latencyMs = Math.max(0, ms);
    },
    dropConnections(how) {
      for (const c of [...clients]) {
        if (how === "reset") c.resetAndDestroy();
        else c.end();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
