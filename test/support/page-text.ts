// A page's client component as the server renders it for the first paint,
// with the router contexts a page has: its HTML, or its text with the tags
// dropped for tests that assert what a user reads.
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";

export async function pageHtml(node: ReturnType<typeof createElement>, pathname: string): Promise<string> {
  const { AppRouterContext } = await import("next/dist/shared/lib/app-router-context.shared-runtime");
  const { SearchParamsContext, PathnameContext } = await import("next/dist/shared/lib/hooks-client-context.shared-runtime");
  const router = { back() {}, forward() {}, refresh() {}, push() {}, replace() {}, prefetch() {} };
  return renderToString(
    createElement(
      QueryClientProvider,
      { client: new QueryClient() },
      createElement(
        AppRouterContext.Provider,
        { value: router as never },
        createElement(PathnameContext.Provider, { value: pathname }, createElement(SearchParamsContext.Provider, { value: new URLSearchParams() }, node)),
      ),
    ),
  );
}

export async function pageText(node: ReturnType<typeof createElement>, pathname: string): Promise<string> {
  return (await pageHtml(node, pathname)).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
}
