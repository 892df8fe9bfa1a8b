"use client";

import { useEffect, useState } from "react";

type Theme = "system" | "light" | "dark";
const NEXT: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>("system");
  useEffect(() => {
    const stored = localStorage.getItem("rye-theme");
    if (stored === "light" || stored === "dark") setTheme(stored);
  }, []);
  const choose = () => {
    const next = NEXT[theme];
    setTheme(next);
    if (next === "system") {
      localStorage.removeItem("rye-theme");
      delete document.documentElement.dataset.theme;
    } else {
      localStorage.setItem("rye-theme", next);
      document.documentElement.dataset.theme = next;
    }
  };
  const shown = theme === "system" ? "Auto" : theme === "light" ? "Light" : "Dark";
  // The accessible name starts with the visible text (WCAG 2.5.3 label in name: voice users say what they see).
  return (
    <button type="button" onClick={choose} className="rounded-md border border-neutral-300 px-2 py-1 text-xs dark:border-neutral-700" aria-label={`${shown} theme. Change theme`}>
      {shown}
    </button>
  );
}
