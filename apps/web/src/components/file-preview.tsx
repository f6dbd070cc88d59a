"use client";

import type { PreviewFile } from "@scalelab/scenarios/plan";
import { useState } from "react";
import { shortContainerName } from "~/lib/format";
import { CodeBlock } from "./scroll-region";

/** `nginx.conf` → nginx, `k6 script` → k6, `server.properties` → server: the test id of a file's tab and content. */
const slugOf = (f: PreviewFile) => f.title.split(/[ .]/)[0]!.toLowerCase();
const keyOf = (f: PreviewFile) => `${f.container}:${f.path}`;
/** The files every run has first (the balancer's, the load's), then the components' in plan order. */
const EVERY_RUN = ["nginx.conf", "haproxy.cfg", "k6 script", "wrk script"];
const rank = (f: PreviewFile) => (EVERY_RUN.includes(f.title) ? EVERY_RUN.indexOf(f.title) : EVERY_RUN.length);

/** A tab per file the run writes into its containers. `stale`: the form has changed into something invalid since. */
export function FilePreview({ files: planned, stale }: { files: readonly PreviewFile[]; stale: boolean }) {
  const [selected, setSelected] = useState<string>();
  const files = [...planned].sort((a, b) => rank(a) - rank(b));
  const current = files.find((f) => keyOf(f) === selected) ?? files[0];
  if (!current) return <div className="chart-empty">This run writes no files.</div>;
  return (
    <>
      <div className="tabs" role="tablist">
        {files.map((f) => (
          <button
            key={keyOf(f)}
            type="button"
            role="tab"
            className={f === current ? "on" : ""}
            aria-selected={f === current}
            data-testid={`preview-tab-${slugOf(f)}`}
            onClick={() => setSelected(keyOf(f))}
          >
            {f.title}
          </button>
        ))}
      </div>
      <div className="file-where mono">
        {current.path} <span className="muted">in {shortContainerName(current.container)}</span>
      </div>
      <CodeBlock label={current.title} data-testid={`preview-${slugOf(current)}`} style={{ opacity: stale ? 0.45 : 1 }}>
        {current.content}
      </CodeBlock>
    </>
  );
}
