import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";

/** A target of the CMake code model: its name, kind (EXECUTABLE, STATIC_LIBRARY, …), sources and built files. */
export const CmakeTarget = v.strictObject({
  name: v.string(),
  type: v.string(),
  /** Relative to the source folder, as CMake lists them. */
  sources: v.array(v.string()),
  /** Relative to the build folder. */
  artifacts: v.array(v.string()),
});
export type CmakeTarget = v.InferOutput<typeof CmakeTarget>;

const Index = v.object({ objects: v.array(v.object({ kind: v.string(), jsonFile: v.string() })) });
const CodeModel = v.object({
  configurations: v.array(v.object({ name: v.string(), targets: v.array(v.object({ name: v.string(), jsonFile: v.string() })) })),
});
const Target = v.object({
  name: v.string(),
  type: v.string(),
  sources: v.optional(v.array(v.object({ path: v.string(), isGenerated: v.optional(v.boolean()) })), []),
  artifacts: v.optional(v.array(v.object({ path: v.string() })), []),
});

function read_json<TSchema extends v.GenericSchema>(file: string, schema: TSchema): v.InferOutput<TSchema> | undefined {
  try {
    const parsed = v.safeParse(schema, JSON.parse(fs.readFileSync(file, "utf8")));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/** A reply file's name, refused when it would leave the reply folder (the index is data, not a path we trust). */
function reply_file(reply: string, name: string): string | undefined {
  const file = path.resolve(reply, name);
  return path.dirname(file) === reply ? file : undefined;
}

/**
 * The targets of a configured build folder from CMake's File API reply (cmake-file-api(7)): the newest index names
 * the code model, the code model its targets. Undefined when the folder has no reply (configured without the query).
 */
export function read_code_model(build_dir: string): { configuration: string; targets: CmakeTarget[] } | undefined {
  const reply = path.join(build_dir, ".cmake", "api", "v1", "reply");
  let names: string[];
  try {
    names = fs.readdirSync(reply);
  } catch {
    return undefined;
  }
  const newest = names
    .filter((name) => /^index-.*\.json$/.test(name))
    .sort()
    .at(-1);
  const index = newest === undefined ? undefined : read_json(path.join(reply, newest), Index);
  const model_name = index?.objects.find((object) => object.kind === "codemodel")?.jsonFile;
  const model_file = model_name === undefined ? undefined : reply_file(reply, model_name);
  const model = model_file === undefined ? undefined : read_json(model_file, CodeModel);
  const configuration = model?.configurations[0];
  if (configuration === undefined) return undefined;
  const targets = configuration.targets.flatMap((entry) => {
    const file = reply_file(reply, entry.jsonFile);
    const target = file === undefined ? undefined : read_json(file, Target);
    if (target === undefined) return [];
    return [
      {
        name: target.name,
        type: target.type,
        sources: target.sources.filter((source) => source.isGenerated !== true).map((source) => source.path),
        artifacts: target.artifacts.map((artifact) => artifact.path),
      },
    ];
  });
  return { configuration: configuration.name, targets };
}
