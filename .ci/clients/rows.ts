// Compiled with tsc --strict against the types openapi-typescript generates
// from openapi.json: a job's rows, schema and options must be typed.
import createClient from "openapi-fetch";
import type { paths, components } from "./api";

type Job = components["schemas"]["Job"];
type Row = components["schemas"]["Row"];

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" });

export async function firstRows(jobId: string): Promise<Row[]> {
  const { data, error } = await client.GET("/v1/jobs/{id}/rows", {
    params: { path: { id: jobId }, query: { limit: 10, numbers: "string" } },
  });
  if (error) {
    throw new Error(`${error.code} (${error.request_id})`);
  }
  const rows: Row[] = data.data;
  const id: unknown = rows[0]?.["id"];
  void id;
  return rows;
}

export async function download(jobId: string): Promise<string> {
  const { data } = await client.GET("/v1/jobs/{id}/rows.jsonl", {
    params: { path: { id: jobId } },
    parseAs: "text",
  });
  return data ?? "";
}

export function fieldNames(job: Job): string[] {
  const names = job.schema?.fields.map((f) => f.name) ?? [];
  const order: "auto" | "DMY" | "MDY" | "YMD" | undefined = job.options.date_order;
  void order;
  return names;
}

export async function create(file: Blob): Promise<Job | undefined> {
  const schema: components["schemas"]["TargetSchema"] = {
    fields: [{ name: "id", type: "integer", constraints: { required: true } }],
  };
  const { data } = await client.POST("/v1/connect/jobs", {
    body: { file_ids: ["file_1"], schema, options: { date_order: "DMY" } },
  });
  void file;
  return data;
}
