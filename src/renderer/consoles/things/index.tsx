// Console for the platform's device service (docs/platform-api.md#things-endpoints): trial
// products, their scenario sets, and device and link lookups.
import { useLoad } from '../../lib/use-load';
import { useSelectedProduct } from '../../lib/navigation';
import { DeviceLookup } from './DeviceLookup';
import { LinkLookup } from './LinkLookup';
import { ScenarioSetEditor } from '../../components/scenario-set/ScenarioSetEditor';
import { TrialProducts } from './TrialProducts';

export function Things() {
  const products = useLoad((api) => api.things.listTrialProducts({}), []);
  const [selectedId, setSelectedId] = useSelectedProduct();
  const selected = products.value?.find((p) => p.id === selectedId);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Device service</h1>
        <p className="muted">Trial products, scenario sets, devices and links.</p>
      </header>
      <TrialProducts products={products} selectedId={selectedId} onSelect={setSelectedId} />
      {selected ? (
        <ScenarioSetEditor key={selected.id} product={selected} />
      ) : (
        <section className="panel">
          <p className="note">Choose a trial product’s “Scenario set” to edit it.</p>
        </section>
      )}
      <div className="columns">
        <DeviceLookup />
        <LinkLookup products={products.value ?? []} />
      </div>
    </div>
  );
}
