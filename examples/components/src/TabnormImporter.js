// TabnormImporter for Vue 3: a thin component around importer.js (load
// {base}/embed/v1/importer.js on the page first). It opens the importer
// when it mounts, inline in its own <div> or as a modal, emits the
// importer's messages (event, complete, error, close), and closes it when
// it unmounts or its url, secret or mode change.
import { defineComponent, h, onBeforeUnmount, onMounted, ref, watch } from "vue";

export const TabnormImporter = defineComponent({
  name: "TabnormImporter",
  props: {
    url: { type: String, required: true },
    clientSecret: { type: String, required: true },
    mode: { type: String, default: "inline" },
    height: String,
    title: String,
    readyTimeout: Number,
  },
  emits: ["event", "complete", "error", "close"],
  setup(props, { emit }) {
    const box = ref(null);
    let importer = null;
    const open = () => {
      if (importer) importer.close();
      importer = window.TabnormImporter.open({
        url: props.url, clientSecret: props.clientSecret, mode: props.mode, height: props.height, title: props.title,
        readyTimeout: props.readyTimeout, container: box.value,
        onEvent: (m) => {
          emit("event", m);
          if (m.type === "tabnorm:closed") emit("close", m);
        },
        onComplete: (m) => emit("complete", m),
        onError: (m) => emit("error", m),
      });
    };
    onMounted(open);
    watch(() => [props.url, props.clientSecret, props.mode], open);
    onBeforeUnmount(() => importer && importer.close());
    return () => h("div", { ref: box, class: "tabnorm-importer" });
  },
});
