"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { currentNavItem, NAV_ITEMS } from "~/lib/nav";

/** The top bar's links; the page's own is marked as current. */
export function Nav() {
  const current = currentNavItem(usePathname());
  return (
    <nav aria-label="Main">
      {NAV_ITEMS.map((item) => (
        <Link
          key={item.href}
          href={item.href}
          prefetch={false}
          aria-current={item.href === current ? "page" : undefined}
          data-testid={`nav-${item.key}`}
        >
          {item.label}
        </Link>
      ))}
    </nav>
  );
}
