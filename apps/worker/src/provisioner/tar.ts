import { PlannedFile } from "@scalelab/scenarios/plan";
import { pack } from "tar-stream";

/** A tar archive of the files, with paths relative to `/`, for PUT /containers/{id}/archive?path=/. */
export async function tarFiles(files: PlannedFile[]): Promise<Buffer> {
  const archive = pack();
  for (const f of files) {
    if (!f.path.startsWith("/") || f.path.split("/").includes("..")) throw new Error(`file path must be absolute: ${f.path}`);
    archive.entry({ name: f.path.slice(1), mode: 0o644 }, f.content);
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
