import type { Metadata } from "next";
import type { ReactNode } from "react";
import { headers } from "next/headers";
import "./globals.css";
import { Providers } from "./providers";
import { NavBar } from "@/components/nav-bar";
import { UserMenu } from "@/components/auth/user-menu";
import { ThemeSwitch } from "@/components/theme/theme-switch";
import { THEME_SCRIPT } from "@/components/theme/theme-choice";

export const metadata: Metadata = {
  title: { default: "Driftwatch", template: "%s · Driftwatch" },
  description: "What differs from Git, who changed it, and which commit is live where.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The theme script is inline, so it needs this response's CSP nonce (proxy.ts).
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // The theme script sets data-theme on <html> before React hydrates it.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:bg-white focus:p-2">
          Skip to content
        </a>
        <Providers>
          <NavBar
            right={
              <div className="flex flex-wrap items-center justify-end gap-3">
                <ThemeSwitch />
                <UserMenu />
              </div>
            }
          />
          <main id="main" className="mx-auto max-w-7xl px-4 py-6">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
