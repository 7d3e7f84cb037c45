/**
 * Puts a page's filters in its address without asking the server to render the page again.
 *
 * The filter pages (drift, timeline, compare, metrics) fetch their own data through the JSON API as
 * soon as a filter changes; `router.replace` would also re-render the page on the server for the new
 * address, a second query for the same data whose answer then raced the client's (and replaced a
 * loading state the viewer had just been shown). Next.js keeps `useSearchParams` and `usePathname`
 * in step with the native history API, so the address stays shareable and Back still works.
 */
export function replaceQueryInAddress(pathname: string, query: string): void {
  window.history.replaceState(window.history.state, "", query ? `${pathname}?${query}` : pathname);
}
