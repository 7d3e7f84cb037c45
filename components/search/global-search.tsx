"use client";
// The global search: press `/` anywhere (except while typing in a field) to
// jump to an environment, object, commit, person or alert. An ARIA 1.2
// combobox: the input keeps focus, the arrow keys move the active option
// (aria-activedescendant), Enter opens it, Escape closes the list and then
// leaves the box.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useRouter } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import type { SearchAnswer, SearchHitDto } from "@/lib/api/contract";
import { fetchJson } from "@/lib/dashboard/client";
import { useSession } from "@/components/use-session";

const KIND_LABEL: Record<SearchHitDto["kind"], string> = { environment: "Environment", application: "Application", object: "Object", commit: "Commit", person: "Person", alert: "Alert" };
const TYPE_DELAY_MS = 150;

/** True when `/` should go to the field the user is typing in, not open the search. */
function typingInAField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

export function GlobalSearch() {
  const session = useSession();
  const router = useRouter();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState("");
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);

  useEffect(() => {
    const t = setTimeout(() => setQuery(text.trim()), TYPE_DELAY_MS);
    return () => clearTimeout(t);
  }, [text]);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || typingInAField(e.target)) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const results = useQuery({
    queryKey: ["search", query],
    queryFn: () => fetchJson<SearchAnswer>(`/api/search?q=${encodeURIComponent(query)}`),
    enabled: open && query.length > 0,
    staleTime: 10_000,
    placeholderData: (previous) => previous,
  });
  const hits = query.length > 0 ? (results.data?.hits ?? []) : [];
  const expanded = open && query.length > 0;
  const current = active >= 0 && active < hits.length ? active : -1;

  if (!session.data?.user) return null;

  const go = (hit: SearchHitDto) => {
    setOpen(false);
    setText("");
    setQuery("");
    input.current?.blur();
    router.push(hit.href);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      setOpen(true);
      if (hits.length === 0) return;
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive(current < 0 ? (step > 0 ? 0 : hits.length - 1) : (current + step + hits.length) % hits.length);
    } else if (e.key === "Enter") {
      const hit = hits[current] ?? (hits.length > 0 ? hits[0] : undefined);
      if (expanded && hit) {
        e.preventDefault();
        go(hit);
      }
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (expanded) {
        setOpen(false);
        setActive(-1);
      } else {
        setText("");
        input.current?.blur();
      }
    }
  };

  const listId = `${id}-list`;
  const optionId = (i: number) => `${id}-option-${i}`;
  return (
    <div className="relative" role="search" aria-label="Everything">
      <label htmlFor={`${id}-input`} className="sr-only">
        Search environments, objects, commits, people and alerts
      </label>
      <input
        ref={input}
        id={`${id}-input`}
        type="text"
        role="combobox"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={expanded && current >= 0 ? optionId(current) : undefined}
        aria-keyshortcuts="/"
        autoComplete="off"
        spellCheck={false}
        placeholder="Search  ( / )"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
        className="w-48 rounded border border-slate-300 px-2 py-1 text-sm lg:w-64"
      />
      <ul
        id={listId}
        role="listbox"
        aria-label="Search results"
        hidden={!expanded}
        className="absolute right-0 z-40 mt-1 max-h-96 w-[28rem] max-w-[90vw] overflow-y-auto rounded border border-slate-200 bg-white py-1 text-sm shadow-lg"
      >
        {hits.map((hit, i) => (
          <li
            key={`${hit.kind}:${hit.href}:${hit.label}`}
            id={optionId(i)}
            role="option"
            aria-selected={i === current}
            // Keeps the input focused: the click must not blur it (which would close the list) before it lands.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => go(hit)}
            className={`cursor-pointer px-3 py-1.5 ${i === current ? "bg-blue-600 text-white" : "hover:bg-slate-100"}`}
          >
            <span className={`mr-2 text-xs uppercase ${i === current ? "text-blue-100" : "text-slate-500"}`}>{KIND_LABEL[hit.kind]}</span>
            <span className="font-medium">{hit.label}</span>
            <span className={`block truncate text-xs ${i === current ? "text-blue-100" : "text-slate-500"}`}>{hit.detail}</span>
          </li>
        ))}
        {expanded && hits.length === 0 && (
          <li role="presentation" className="px-3 py-1.5 text-slate-500">
            {results.isFetching || query !== text.trim() ? "Searching…" : results.isError ? "Search failed; try again." : "Nothing found."}
          </li>
        )}
      </ul>
    </div>
  );
}
