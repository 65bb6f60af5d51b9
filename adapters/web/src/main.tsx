/** The page's entry point (adapters/web/index.html loads the built bundle of this module). */
import { start } from './app.tsx';
import './styles.css';

start(document.getElementById('app') as HTMLElement);
