/** What `npm run image` says once it has built: the engine, and how compose then finds the image. */
import { describe, expect, it } from "bun:test";
import { builtNote } from "../../deploy/image";

describe("npm run image's last line", () => {
  const tags = ["linkshelf:0.2.0", "linkshelf:latest"];

  it("names podman, and how Docker's compose gets a podman image", () => {
    const note = builtNote("podman", tags);
    expect(note).toStartWith("built linkshelf:0.2.0 and linkshelf:latest with podman");
    expect(note).toContain("podman compose -f deploy/compose.yaml up -d");
    expect(note).toContain("podman save linkshelf:latest | docker load");
  });

  it("names docker, whose compose finds the image as it is", () => {
    const note = builtNote("docker", tags);
    expect(note).toBe("built linkshelf:0.2.0 and linkshelf:latest with docker: docker compose -f deploy/compose.yaml up -d");
  });
});
