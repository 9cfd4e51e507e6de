// A React host app: a button opens the importer (the session's url,
// secret and mode come from window.tabnormSession, which the page's
// backend wrote), and what the importer says is kept for the page.
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { TabnormImporter } from "./TabnormImporter.jsx";

const session = window.tabnormSession;
window.events = [];

function App() {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState(null);
  return (
    <main>
      <h1>Acme (React)</h1>
      <button type="button" id="open" onClick={() => setOpen(true)}>Import contacts</button>
      {done && <p id="done">Imported {done.rowsValid} rows.</p>}
      {open && !done && (
        <TabnormImporter url={session.url} clientSecret={session.clientSecret} mode={session.mode}
          onEvent={(m) => window.events.push(m.type)} onComplete={(m) => { window.complete = m; setDone(m); }}
          onClose={() => setOpen(false)} />
      )}
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
