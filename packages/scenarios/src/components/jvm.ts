/** Half the container's memory for the JVM heap; the rest is page cache, metaspace and threads. */
export const jvmHeapMb = (memoryMb: number) => Math.max(128, Math.floor(memoryMb / 2));
