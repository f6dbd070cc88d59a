"use client";

import { parseImageReference, type TImageBuildEvent, type TRunnableImage } from "@scalelab/scenarios/images";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { tagFromFileName, uploadContext, type UploadOutcome } from "~/lib/image-upload";
import { useTRPC } from "~/trpc/client";
import { CodeBlock } from "./scroll-region";

/** How many of the build's lines the progress box keeps. */
const SHOWN_LINES = 200;

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

/** One line of the datalist: the reference, and what tells two apart. */
const describe = (i: TRunnableImage) =>
  `${megabytes(i.size)}, built ${new Date(i.created).toLocaleString()}${i.uploaded ? ", uploaded" : ""}`;

/**
 * Under the run form's Image field: the engine's images to pick from (GET /api/v1/images; the lab's
 * own are left out) and a build-context upload (POST /api/v1/images, its progress shown as it
 * streams; on failure its last lines). A pick or a finished build calls `onPicked`.
 */
export function ImageChoices({ onPicked, disabled }: { onPicked: (reference: string) => void; disabled?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const images = useQuery(trpc.images.list.queryOptions({}));
  return (
    <div className="field wide stack" data-testid="image-choices">
      <label htmlFor="imageChoice">…or pick one on the lab&apos;s engine</label>
      <select
        id="imageChoice"
        value=""
        onChange={(e) => e.target.value && onPicked(e.target.value)}
        disabled={disabled || !images.data?.length}
        data-testid="image-choice"
      >
        <option value="">
          {images.isError
            ? `could not list the engine's images: ${images.error.message}`
            : images.data
              ? `${images.data.length} image(s) besides the lab's own`
              : "loading the engine's images…"}
        </option>
        {images.data?.map((i) => (
          <option key={i.reference} value={i.reference}>
            {i.reference} ({describe(i)})
          </option>
        ))}
      </select>
      <UploadContext
        disabled={disabled}
        onBuilt={(reference) => {
          void queryClient.invalidateQueries({ queryKey: trpc.images.list.queryKey() });
          onPicked(reference);
        }}
      />
    </div>
  );
}

type Progress = { step?: Extract<TImageBuildEvent, { type: "step" }>; lines: string[] };

function UploadContext({ onBuilt, disabled }: { onBuilt: (reference: string) => void; disabled?: boolean }) {
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [tag, setTag] = useState("");
  const [building, setBuilding] = useState(false);
  const [progress, setProgress] = useState<Progress>({ lines: [] });
  const [outcome, setOutcome] = useState<UploadOutcome | null>(null);
  const abort = useRef<AbortController | null>(null);

  const tagCheck = tag ? parseImageReference(tag, "tag") : null;
  const tagError =
    tagCheck && !tagCheck.ok
      ? tagCheck.message
      : outcome && !outcome.ok
        ? outcome.issues.find((i) => i.path === "tag")?.message
        : undefined;
  const canBuild = file !== null && tagCheck?.ok === true && !building && !disabled;

  async function build() {
    if (!file || !tagCheck?.ok) return;
    const controller = new AbortController();
    abort.current = controller;
    setBuilding(true);
    setOutcome(null);
    setProgress({ lines: [] });
    try {
      const result = await uploadContext({
        file,
        tag: tagCheck.value.reference,
        signal: controller.signal,
        onEvent: (e) =>
          setProgress((p) =>
            e.type === "step"
              ? { step: e, lines: [...p.lines, `Step ${e.step}/${e.totalSteps} : ${e.instruction}`].slice(-SHOWN_LINES) }
              : e.type === "output"
                ? { ...p, lines: [...p.lines, e.line].slice(-SHOWN_LINES) }
                : p,
          ),
      });
      setOutcome(result);
      if (result.ok) onBuilt(result.reference);
    } catch (err) {
      const message = controller.signal.aborted ? "Cancelled: the build was stopped" : `The upload failed: ${(err as Error).message}`;
      setOutcome({ ok: false, message, lastLines: [], issues: [] });
    } finally {
      abort.current = null;
      setBuilding(false);
    }
  }

  return (
    <details className="panel" data-testid="image-upload">
      <summary>Upload build context (.tar/.tar.gz)</summary>
      <div className="fields">
        <div className="field">
          <label htmlFor={`${id}-file`}>Build context</label>
          <input
            id={`${id}-file`}
            type="file"
            accept=".tar,.tar.gz,.tgz,application/x-tar,application/gzip"
            disabled={building || disabled}
            data-testid="image-upload-file"
            onChange={(e) => {
              const chosen = e.target.files?.[0] ?? null;
              setFile(chosen);
              if (chosen && !tag) setTag(tagFromFileName(chosen.name));
            }}
          />
          <div className="hint">A tar of a directory with a Dockerfile at its root, at most 200 MiB: tar -C myapp -czf myapp.tar.gz .</div>
        </div>
        <div className={`field${tagError ? " invalid" : ""}`}>
          <label htmlFor={`${id}-tag`}>Tag</label>
          <input
            id={`${id}-tag`}
            value={tag}
            placeholder="myapp:1"
            spellCheck={false}
            disabled={building || disabled}
            aria-invalid={tagError ? true : undefined}
            data-testid="image-upload-tag"
            onChange={(e) => setTag(e.target.value.trim())}
          />
          {tagError ? <div className="field-error">{tagError}</div> : <div className="hint">name[:tag], not in scalelab/</div>}
        </div>
      </div>
      <div className="form-actions">
        <button type="button" className="btn" disabled={!canBuild} onClick={() => void build()} data-testid="image-upload-build">
          {building ? "Building…" : "Upload and build"}
        </button>
        {building && (
          <button type="button" className="btn btn-danger" onClick={() => abort.current?.abort()} data-testid="image-upload-cancel">
            Cancel
          </button>
        )}
        {building && progress.step && (
          <span className="muted" data-testid="image-upload-step">
            Step {progress.step.step}/{progress.step.totalSteps}: {progress.step.instruction}
          </span>
        )}
      </div>
      {(building || (outcome?.ok && progress.lines.length > 0)) && (
        <CodeBlock label="Build log" data-testid="image-upload-log">
          {progress.lines.join("\n")}
        </CodeBlock>
      )}
      {outcome?.ok && (
        <div className="muted" data-testid="image-upload-done">
          Built {outcome.reference} ({outcome.id.slice(0, 19)})
        </div>
      )}
      {outcome && !outcome.ok && (
        <div className="error-box" role="alert" data-testid="image-upload-error">
          {outcome.message}
          {outcome.lastLines.length > 0 && <CodeBlock label="The build's last lines">{outcome.lastLines.join("\n")}</CodeBlock>}
        </div>
      )}
    </details>
  );
}
