"use client";
// Light / dark / system, in the nav bar. The choice takes effect at once (the
// data-theme attribute on <html>) and is remembered for the next page load.
import { useSyncExternalStore } from "react";
import { parseThemeChoice, THEME_CHOICES, THEME_STORAGE_KEY, type ThemeChoice } from "./theme-choice";

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab changed it: follow, as the next page load would.
  const onStorage = (e: StorageEvent) => {
    if (e.key === THEME_STORAGE_KEY) {
      apply(parseThemeChoice(e.newValue));
      listener();
    }
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

function stored(): ThemeChoice {
  try {
    return parseThemeChoice(localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return "system"; // storage refused (privacy settings): the theme is then the system's
  }
}

function apply(choice: ThemeChoice): void {
  if (choice === "system") document.documentElement.removeAttribute("data-theme");
  else document.documentElement.setAttribute("data-theme", choice);
}

function choose(choice: ThemeChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Not remembered, but still applied to this page.
  }
  apply(choice);
  for (const l of listeners) l();
}

export function ThemeSwitch() {
  // The server cannot know the stored choice: it renders "system", and the
  // browser's value replaces it once hydrated (the page itself was already
  // painted in the right theme by the head script).
  const choice = useSyncExternalStore(subscribe, stored, () => "system" as const);
  return (
    <label className="flex items-center gap-1.5 text-slate-600">
      <span>Theme</span>
      <select
        value={choice}
        onChange={(e) => choose(parseThemeChoice(e.target.value))}
        className="min-h-8 rounded border border-slate-300 bg-white px-1.5 py-0.5 text-slate-800"
      >
        {THEME_CHOICES.map((c) => (
          <option key={c} value={c}>
            {LABELS[c]}
          </option>
        ))}
      </select>
    </label>
  );
}
