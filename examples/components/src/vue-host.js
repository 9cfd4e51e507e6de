// A Vue host app: the same as react-host.jsx, in Vue.
import { createApp, h, ref } from "vue";
import { TabnormImporter } from "./TabnormImporter.js";

const session = window.tabnormSession;
window.events = [];

createApp({
  setup() {
    const open = ref(false);
    const done = ref(null);
    return () => h("main", [
      h("h1", "Acme (Vue)"),
      h("button", { type: "button", id: "open", onClick: () => { open.value = true; } }, "Import contacts"),
      done.value ? h("p", { id: "done" }, `Imported ${done.value.rowsValid} rows.`) : null,
      open.value && !done.value ? h(TabnormImporter, {
        url: session.url, clientSecret: session.clientSecret, mode: session.mode,
        onEvent: (m) => window.events.push(m.type),
        onComplete: (m) => { window.complete = m; done.value = m; },
        onClose: () => { open.value = false; },
      }) : null,
    ]);
  },
}).mount("#root");
