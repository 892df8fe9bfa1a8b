"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { focusRing } from "./ui";

const SECTIONS = [
  { href: "/settings", label: "Account" },
  { href: "/settings/tokens", label: "Tokens" },
  { href: "/settings/keys", label: "Keys" },
  { href: "/settings/orgs", label: "Organizations" },
  { href: "/settings/approvals", label: "Approvals" },
  { href: "/settings/webhooks", label: "Webhooks" },
] as const;

/** The settings sections; the current one is marked for assistive technology (aria-current). */
export function SettingsNav() {
  const path = usePathname();
  const current = (href: string) => (href === "/settings" ? path === href : path === href || path.startsWith(`${href}/`));
  return (
    <nav aria-label="Settings" className="md:w-48 md:shrink-0">
      <ul className="flex gap-1 overflow-x-auto md:flex-col">
        {SECTIONS.map(({ href, label }) => (
          <li key={href}>
            <Link
              href={href}
              aria-current={current(href) ? "page" : undefined}
              className={`block whitespace-nowrap rounded-md px-3 py-2 text-sm hover:bg-neutral-100 aria-[current=page]:bg-neutral-100 aria-[current=page]:font-semibold dark:hover:bg-neutral-900 dark:aria-[current=page]:bg-neutral-900 ${focusRing}`}
            >
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
