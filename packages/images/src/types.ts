export type ImageName = "base" | "testbed" | "nginx" | "k6" | "postgres" | "redis";

export type ImageProgress = {
  image: ImageName;
  phase: "cached" | "bootstrapping" | "compiling" | "building" | "done";
  step?: number;
  totalSteps?: number;
  message: string;
};

export type EnsureOptions = {
  onProgress?: (p: ImageProgress) => void;
  signal?: AbortSignal;
};
