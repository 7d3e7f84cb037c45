// The global search behind the `/` key: one box that jumps to an environment,
// an application, an object, a commit, a person or an alert.
import { z } from "zod";
import { named, object } from "./schema";

export const SEARCH_KINDS = ["environment", "application", "object", "commit", "person", "alert"] as const;

export const SearchHitDto = named(
  "SearchHit",
  object({
    kind: z.enum(SEARCH_KINDS),
    label: z.string().describe("What the hit is called: `production`, `Deployment shop/web`, `a1b2c3d fix(api): …`"),
    detail: z.string().describe("Where or what it is, in a few words"),
    href: z.string().describe("The dashboard page to open (a path on this server)"),
  }),
);
export type SearchHitDto = z.infer<typeof SearchHitDto>;

export const SearchAnswer = named("SearchAnswer", object({ query: z.string(), hits: z.array(SearchHitDto).describe("Best first, at most 5 per kind and 20 in all") }));
export type SearchAnswer = z.infer<typeof SearchAnswer>;

export const searchQuery = z.object({
  q: z.string().trim().min(1, "type something to search for").max(200).describe("An environment, application, object (kind, namespace and/or name, partial), commit sha (4–40 hex digits), person (name or email) or alert"),
});
