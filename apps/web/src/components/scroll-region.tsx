"use client";

import { useEffect, useRef, useState, type CSSProperties, type ReactNode } from "react";

/**
 * Props for an element that may scroll (a wide table, a long log): while its content overflows it
 * is a named region in the tab order, so that it can be scrolled with the keyboard; otherwise it
 * adds no tab stop.
 */
export function useScrollRegion<T extends HTMLElement>(label: string, { landmark = true }: { landmark?: boolean } = {}) {
  const ref = useRef<T>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const check = () => setScrolls(el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
    check();
    const resized = new ResizeObserver(check);
    resized.observe(el);
    const changed = new MutationObserver(check);
    changed.observe(el, { childList: true, subtree: true, characterData: true });
    return () => {
      resized.disconnect();
      changed.disconnect();
    };
  }, []);
  return {
    ref,
    "data-scroll-region": "",
    ...(scrolls ? { tabIndex: 0, "aria-label": label, ...(landmark && { role: "region" }) } : {}),
  };
}

/**
 * A box whose content scrolls sideways inside it, not the page: a card holding a wide table, or the
 * table's own wrapper. Pass the card's element, class and style to make the card itself the box.
 */
export function ScrollBox({
  as: Tag = "div",
  label,
  className,
  children,
  ...rest
}: {
  as?: "div" | "section";
  label: string;
  className?: string;
  style?: CSSProperties;
  children: ReactNode;
  "data-testid"?: string;
}) {
  const region = useScrollRegion<HTMLDivElement>(label);
  return (
    <Tag className={className ? `${className} table-scroll` : "table-scroll"} {...rest} {...region}>
      {children}
    </Tag>
  );
}

/** Wraps a component that renders a table, so that the table scrolls inside its card. */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return <ScrollBox label={label}>{children}</ScrollBox>;
}

type BlockProps = { label: string; children: ReactNode; className?: string; style?: CSSProperties; "data-testid"?: string };

/** A `pre.code` block that scrolls inside its card (a generated file, a log, a definition). */
export function CodeBlock({ label, children, className, ...rest }: BlockProps) {
  const region = useScrollRegion<HTMLPreElement>(label);
  return (
    <pre className={className ? `code ${className}` : "code"} {...rest} {...region}>
      {children}
    </pre>
  );
}

/** A list of lines that scrolls inside its card (the run's events). */
export function ScrollList({ label, children, className, ...rest }: BlockProps) {
  // A list keeps its role: a named list is announced as such.
  const region = useScrollRegion<HTMLUListElement>(label, { landmark: false });
  return (
    <ul className={className} {...rest} {...region}>
      {children}
    </ul>
  );
}
