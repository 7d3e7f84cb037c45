// Service ClusterIP and NodePort allocation, as the real allocators do it:
// the conventional 10.96.0.0/12 range, 30000-32767 for node ports, an
// explicit address refused when already taken, addresses kept on update.
import { invalid } from "./errors";
import { asNum, asObj, asStr, clone, isObj, type Obj } from "./json";
import { md } from "./write-options";

export class ServiceAllocator {
  private usedIPs = new Set<string>();
  private usedNodePorts = new Set<number>();

  allocateService(obj: Obj, old: Obj | undefined): void {
    const spec = asObj(obj.spec) ?? {};
    const oldSpec = asObj(old?.spec);
    const type = asStr(spec.type) ?? "ClusterIP";
    if (type === "ExternalName") {
      for (const k of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) if (!oldSpec) delete spec[k];
      return;
    }
    if (oldSpec) {
      for (const k of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) if (spec[k] === undefined || spec[k] === "") spec[k] = clone(oldSpec[k]);
    }
    let ip = asStr(spec.clusterIP);
    if (!ip && Array.isArray(spec.clusterIPs) && typeof spec.clusterIPs[0] === "string") ip = spec.clusterIPs[0];
    if (!ip) {
      ip = this.allocateIP();
    } else if (ip !== "None" && !old) {
      if (this.usedIPs.has(ip)) {
        throw invalid("", "Service", asStr(md(obj).name) ?? "", [
          { type: "Invalid", field: "spec.clusterIPs", value: `[]string{${JSON.stringify(ip)}}`, detail: `failed to allocate IP ${ip}: provided IP is already allocated` },
        ]);
      }
      this.usedIPs.add(ip);
    }
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ["IPv4"];
    if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = "SingleStack";
    if (type === "NodePort" || type === "LoadBalancer") {
      const oldPorts = Array.isArray(oldSpec?.ports) ? oldSpec.ports : [];
      for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
        if (!isObj(p) || p.nodePort) continue;
        const prev = oldPorts.find((x) => isObj(x) && x.port === p.port && (x.protocol ?? "TCP") === (p.protocol ?? "TCP"));
        p.nodePort = isObj(prev) && prev.nodePort ? prev.nodePort : this.allocateNodePort();
      }
    }
    obj.spec = spec;
  }

  private allocateIP(): string {
    // The conventional 10.96.0.0/12 service range; .1 belongs to the "kubernetes" service.
    for (;;) {
      const n = 2 + Math.floor(Math.random() * (1 << 20) - 2);
      const ip = `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
      if (!this.usedIPs.has(ip) && (n & 255) !== 0 && (n & 255) !== 255) {
        this.usedIPs.add(ip);
        return ip;
      }
    }
  }

  private allocateNodePort(): number {
    for (;;) {
      const p = 30000 + Math.floor(Math.random() * 2768);
      if (!this.usedNodePorts.has(p)) {
        this.usedNodePorts.add(p);
        return p;
      }
    }
  }

  /** Records addresses of loaded/seeded services so allocation does not reuse them. */
  noteAllocated(obj: Obj): void {
    const spec = asObj(obj.spec);
    const ip = asStr(spec?.clusterIP);
    if (ip && ip !== "None") this.usedIPs.add(ip);
    for (const p of Array.isArray(spec?.ports) ? spec.ports : []) {
      const np = asNum(asObj(p)?.nodePort);
      if (np) this.usedNodePorts.add(np);
    }
  }
}
