// Compiled with tsc --noEmit (npm run check-types) against importer.d.ts:
// a host page's use of TabnormImporter, which must type-check, and
// mistakes the declarations must refuse (each marked @ts-expect-error).
import type { TabnormEvent, TabnormComplete, TabnormError } from "../../../adapters/importer/assets/importer.d.ts";

const seen: string[] = [];
const handle = TabnormImporter.open({
  url: "https://tabnorm.example.com/embed/imp_1",
  clientSecret: "imp_secret_x",
  mode: "modal",
  readyTimeout: 5000,
  onEvent: (e: TabnormEvent) => {
    switch (e.type) {
      case "tabnorm:resize":
        seen.push(String(e.height));
        break;
      case "tabnorm:job_created":
        seen.push(e.jobId, e.rerunOf ?? "");
        break;
      case "tabnorm:error":
        seen.push(e.code, e.message);
        break;
    }
  },
  onComplete: (m: TabnormComplete) => seen.push(...m.jobIds, String(m.rowsValid)),
  onError: (m: TabnormError) => {
    if (m.code === "frame_blocked") seen.push(m.message);
  },
});
handle.close();
const frame: HTMLIFrameElement = handle.frame;
seen.push(frame.src);

// @ts-expect-error: mode is inline or modal
TabnormImporter.open({ url: "u", clientSecret: "s", mode: "fullscreen" });
// @ts-expect-error: clientSecret is required
TabnormImporter.open({ url: "u" });
TabnormImporter.open({
  url: "u",
  clientSecret: "s",
  // @ts-expect-error: a complete message has no height
  onComplete: (m) => seen.push(String(m.height)),
});
