import { describe, expect, it } from "vitest";
import { requestedImages } from "./cli-args";
import { DEPENDENCY_IMAGES } from "./index";

describe("requestedImages", () => {
  it("builds the control plane and the core lab images by default, and only the core ones for --lab", () => {
    expect(requestedImages([])).toEqual(["postgres", "redis", "testbed", "nginx", "k6"]);
    expect(requestedImages(["--lab"])).toEqual(["testbed", "nginx", "k6"]);
    expect(requestedImages(["--lab", "--control-plane"])).toEqual(["postgres", "redis", "testbed", "nginx", "k6"]);
  });

  it("--swarm asks for the test cluster's node and registry images, which --all leaves out", () => {
    expect(requestedImages(["--swarm"])).toEqual(["swarm-node", "registry"]);
    expect(requestedImages(["--image", "registry"])).toEqual(["registry"]);
    expect(requestedImages(["--all"])).not.toContain("swarm-node");
  });

  it("--dependencies asks for what a topology may add, and no lab image; with --control-plane that first", () => {
    expect(requestedImages(["--dependencies"])).toEqual([...DEPENDENCY_IMAGES]);
    expect(requestedImages(["--dependencies"])).toEqual(expect.arrayContaining(["haproxy", "kafka", "toxiproxy"]));
    expect(requestedImages(["--dependencies", "--swarm", "--control-plane"]).slice(0, 3)).toEqual(["postgres", "redis", "haproxy"]);
    for (const lab of ["testbed", "nginx", "k6"]) expect(requestedImages(["--dependencies"])).not.toContain(lab);
  });

  it("--all adds the dependency images; each image once", () => {
    const all = requestedImages(["--all", "--lab"]);
    expect([...all].sort()).toEqual([
      "cassandra",
      "haproxy",
      "hotkey-nginx",
      "k6",
      "kafka",
      "memcached",
      "nginx",
      "postgres",
      "rabbitmq",
      "redis",
      "ruby",
      "testbed",
      "toxiproxy",
      "wrk",
    ]);
    expect(all.slice(0, 2)).toEqual(["postgres", "redis"]);
  });

  it("takes --image NAME and --image=NAME, repeatedly", () => {
    expect(requestedImages(["--image", "kafka", "--image=cassandra", "--image", "kafka"])).toEqual(["kafka", "cassandra"]);
  });

  it("rejects unknown images and arguments", () => {
    expect(() => requestedImages(["--image", "base"])).toThrow(/unknown image base/);
    expect(() => requestedImages(["--image"])).toThrow(/--image needs a name/);
    expect(() => requestedImages(["--kafka"])).toThrow(/unknown argument --kafka/);
  });
});
