/**
 * `npm run image [-- ENGINE_OPTIONS...]`: builds the container image `linkshelf:<version>` (and
 * `linkshelf:latest`) with podman, or docker when podman is not installed. Base images are not
 * needed: dist/image/rootfs/ gets this machine's linkshelf executable, exactly the shared libraries
 * `ldd` says it loads, and /etc/passwd + /etc/group naming the unprivileged user (65532); the
 * Containerfile copies that folder into an empty (`FROM scratch`) image. Options after `--` go to
 * the engine before `build` (`npm run image -- --storage-driver vfs`).
 */
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildExecutable } from "../build";
import { VERSION } from "../release";

const ROOT = join(import.meta.dir, "..");
export const CONTAINERFILE = join(import.meta.dir, "Containerfile");
/** The uid and gid the server runs as (the "nonroot" id distroless images use). */
export const UID = 65532;
/** Where the executable lives inside the image. */
export const BINARY_IN_IMAGE = "/usr/local/bin/linkshelf";

/** sharedLibraries lists the absolute paths `ldd` prints for an executable: its libraries and the loader. */
export function sharedLibraries(executable: string): string[] {
  const ldd = Bun.spawnSync(["ldd", executable], { stdout: "pipe", stderr: "pipe" });
  if (ldd.exitCode !== 0) throw new Error(`ldd ${executable} failed: ${ldd.stderr.toString()}`);
  const paths: string[] = [];
  for (const line of ldd.stdout.toString().split("\n")) {
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match) paths.push(match[1]!);
  }
  return paths;
}

/**
 * assembleContext writes the build context into `dir`: rootfs/ (executable, libraries, users) and
 * an empty data/ that becomes /data, owned by UID. Returns the libraries it copied.
 */
export async function assembleContext(dir: string): Promise<string[]> {
  rmSync(dir, { recursive: true, force: true });
  const rootfs = join(dir, "rootfs");
  const binary = join(rootfs, BINARY_IN_IMAGE);
  mkdirSync(dirname(binary), { recursive: true });
  await buildExecutable(binary);
  const libraries = sharedLibraries(binary);
  for (const library of libraries) {
    // Copied under the name the loader asks for, with the bytes of whatever that name links to.
    mkdirSync(join(rootfs, dirname(library)), { recursive: true });
    copyFileSync(library, join(rootfs, library));
  }
  mkdirSync(join(rootfs, "etc"));
  writeFileSync(join(rootfs, "etc", "passwd"), `root:x:0:0:root:/:/sbin/nologin\nlinkshelf:x:${UID}:${UID}:linkshelf:/data:/sbin/nologin\n`);
  writeFileSync(join(rootfs, "etc", "group"), `root:x:0:\nlinkshelf:x:${UID}:\n`);
  mkdirSync(join(rootfs, "tmp"));
  // Not through mkdir's mode, which the umask trims.
  chmodSync(join(rootfs, "tmp"), 0o1777);
  mkdirSync(join(dir, "data"));
  return libraries;
}

/** containerEngine is podman when installed, else docker, else null. */
export function containerEngine(): "podman" | "docker" | null {
  for (const engine of ["podman", "docker"] as const) {
    if (Bun.which(engine)) return engine;
  }
  return null;
}

/** buildCommand is the engine's build command line for the context in `dir`. */
export function buildCommand(engine: "podman" | "docker", dir: string, tags: string[], engineOptions: string[] = []): string[] {
  // Podman writes OCI images by default, which have no HEALTHCHECK; the Docker format keeps it.
  const format = engine === "podman" ? ["--format", "docker"] : [];
  return [engine, ...engineOptions, "build", ...format, "-f", CONTAINERFILE, ...tags.flatMap((tag) => ["-t", tag]), dir];
}

/**
 * builtNote is what `npm run image` prints after a build: which engine built the image, and how
 * compose finds it (an image podman built lives in podman's storage, which the Docker engine does not read).
 */
export function builtNote(engine: "podman" | "docker", tags: string[]): string {
  const built = `built ${tags.join(" and ")} with ${engine}`;
  if (engine === "docker") return `${built}: docker compose -f deploy/compose.yaml up -d`;
  return `${built} (in podman's image storage): podman compose -f deploy/compose.yaml up -d,
or for Docker's engine first: podman save linkshelf:latest | docker load`;
}

if (import.meta.main) {
  const engine = containerEngine();
  if (!engine) {
    console.error("npm run image needs podman or docker (apt-get install podman)");
    process.exit(1);
  }
  console.log(`building the image with ${engine}${engine === "podman" ? " (docker is used when podman is not installed)" : " (podman is not installed)"}`);
  const dir = join(ROOT, "dist", "image");
  const libraries = await assembleContext(dir);
  console.log(`dist/image/rootfs: ${BINARY_IN_IMAGE} and ${libraries.join(", ")}`);
  const tags = [`linkshelf:${VERSION}`, "linkshelf:latest"];
  const command = buildCommand(engine, dir, tags, process.argv.slice(2));
  console.log(command.join(" "));
  const build = Bun.spawnSync(command, { stdout: "inherit", stderr: "inherit" });
  if (build.exitCode === 0) console.log(builtNote(engine, tags));
  process.exit(build.exitCode ?? 1);
}
