import type Docker from "dockerode";

export type StreamEvent = {
  stream?: string;
  status?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
};

/** Follows a build/import/pull JSON stream; rejects on transport errors and on `errorDetail` events. */
export function followStream(
  docker: Docker,
  stream: NodeJS.ReadableStream,
  onEvent: (event: StreamEvent) => void = () => {},
): Promise<StreamEvent[]> {
  return new Promise((resolve, reject) => {
    let failure: string | undefined;
    docker.modem.followProgress(
      stream,
      (err: Error | null, output: StreamEvent[]) => {
        if (err) reject(err);
        else if (failure !== undefined) reject(new Error(failure));
        else resolve(output);
      },
      (event: StreamEvent) => {
        if (event.errorDetail || event.error) {
          failure ??= (event.errorDetail?.message ?? event.error ?? "unknown error").trim();
        }
        onEvent(event);
      },
    );
  });
}

export async function imageExists(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
}
