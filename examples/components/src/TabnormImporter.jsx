// TabnormImporter for React: a thin component around importer.js (load
// {base}/embed/v1/importer.js on the page first). It opens the importer
// when it mounts, inline in its own <div> or as a modal, and closes it
// when it unmounts. Callbacks are read at the time of each event, so a
// new function does not reopen the importer; url, clientSecret and mode
// do.
import { useEffect, useRef } from "react";

export function TabnormImporter({ url, clientSecret, mode = "inline", height, title, readyTimeout, onEvent, onComplete, onError, onClose }) {
  const box = useRef(null);
  const handlers = useRef({});
  handlers.current = { onEvent, onComplete, onError, onClose };
  useEffect(() => {
    if (!url || !clientSecret) return undefined;
    const call = (name, m) => typeof handlers.current[name] === "function" && handlers.current[name](m);
    const importer = window.TabnormImporter.open({
      url, clientSecret, mode, height, title, readyTimeout, container: box.current,
      onEvent: (m) => {
        call("onEvent", m);
        if (m.type === "tabnorm:closed") call("onClose", m);
      },
      onComplete: (m) => call("onComplete", m),
      onError: (m) => call("onError", m),
    });
    return () => importer.close();
  }, [url, clientSecret, mode, height, title, readyTimeout]);
  return <div ref={box} className="tabnorm-importer" />;
}
